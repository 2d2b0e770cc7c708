// Where a server's CPU goes: a V8 .cpuprofile reduced to each package's share of the main thread while the load ran,
// bundled code mapped back through .next's source maps (bench/README.md, "Profiling").
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface Profile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Package or file a source belongs to; null for Node's own code and natives (charged to their caller). */
function kindOf(source: string): string | null {
  if (!source || source.startsWith("node:") || source.includes("internal/")) return null;
  if (source.includes("zod")) return "zod";
  if (/@prisma\/client|query_compiler|lib\/generated/.test(source)) return "Prisma client";
  if (/@prisma\/(adapter-pg|driver-adapter-utils)/.test(source)) return "Prisma pg adapter";
  if (/node_modules\/(pg|pg-protocol|pg-pool|pg-types)\//.test(source)) return "pg driver (with its socket writes)";
  if (/node_modules\/next\//.test(source)) return "Next.js (with Node's http and web streams)";
  const own = /(?:^|\/)((?:lib|app)\/[^?]*)/.exec(source);
  if (own && !source.includes("node_modules")) return own[1];
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  return pkg ? pkg[1] : "other";
}

const SPECIAL: Record<string, string> = {
  "(garbage collector)": "garbage collector",
  "(program)": "event loop and V8 (no JS frame)",
  "(root)": "event loop and V8 (no JS frame)",
};

/**
 * Each kind's share (0 to 1) of the samples between `fromUs` and `toUs` (CLOCK_MONOTONIC µs). Shares, not times: on
 * a busy machine a sample's interval includes time the thread waited for a core.
 */
export function profileShares(file: string, fromUs: bigint, toUs: bigint): Map<string, number> {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const maps = new Map<string, SourceMap | null>();
  const sourceOf = ({ url, lineNumber, columnNumber }: CallFrame) => {
    if (!url.includes("/.next/")) return url;
    if (!maps.has(url)) {
      const map = `${url.startsWith("file:") ? fileURLToPath(url) : url}.map`;
      maps.set(url, existsSync(map) ? new SourceMap(JSON.parse(readFileSync(map, "utf8"))) : null);
    }
    const entry = maps.get(url)?.findEntry(lineNumber, columnNumber);
    return entry && "originalSource" in entry ? entry.originalSource : url;
  };
  const kinds = new Map<number, string>();
  const kindOfNode = (id: number): string => {
    let kind = kinds.get(id);
    if (kind === undefined) {
      const frame = nodes.get(id)!.callFrame;
      const up = parent.get(id);
      const special = Object.hasOwn(SPECIAL, frame.functionName) ? SPECIAL[frame.functionName] : undefined;
      kind = special ?? kindOf(sourceOf(frame)) ?? (up === undefined ? "other" : kindOfNode(up));
      kinds.set(id, kind);
    }
    return kind;
  };
  const counts = new Map<string, number>();
  let time = BigInt(profile.startTime);
  let total = 0;
  profile.samples.forEach((id, i) => {
    time += BigInt(profile.timeDeltas[i]);
    if (time < fromUs || time > toUs || nodes.get(id)!.callFrame.functionName === "(idle)") return;
    const kind = kindOfNode(id);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    total++;
  });
  return new Map([...counts].sort((a, b) => b[1] - a[1]).map(([kind, n]) => [kind, n / total]));
}
