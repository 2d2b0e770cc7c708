import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The layers of the project's code, top first: a file may import its own layer or a lower one, never a higher
 * one, and no file reaches itself through its imports. Route -> wrapper -> start-up -> domain -> data access ->
 * client -> settings and log lines (lib/settings.mjs, lib/log-line.mjs) -> generated Prisma client. The consumers of
 * the contract (routes, document, client, importer, tracing, metrics, the preload, the launcher, the tools, the
 * benchmark and the tests) stand at the top.
 */
const LAYERS: [string, string[]][] = [
  [
    "consumers",
    [
      "app/",
      "instrumentation.ts",
      "lib/openapi/",
      "lib/client/",
      "lib/importer/",
      "lib/instrumentation/",
      "lib/preload/",
      "lib/runtime/",
      "scripts/",
      "bench/",
      "tests/",
    ],
  ],
  ["wrapper", ["lib/api/"]],
  ["start-up", ["lib/startup/"]],
  ["domain", ["lib/leads/"]],
  ["data access", ["lib/db/store/"]],
  ["client", ["lib/db/"]],
  ["settings", ["lib/settings.mjs", "lib/log-line.mjs"]],
  ["generated", ["lib/generated/"]],
];

const root = path.resolve(import.meta.dirname, "../..");
const SOURCE = /\.(ts|tsx|mts|mjs)$/;

function filesUnder(relative: string): string[] {
  const full = path.join(root, relative);
  if (statSync(full).isFile()) return [relative];
  return readdirSync(full).flatMap((name) => {
    const child = path.posix.join(relative, name);
    return statSync(path.join(root, child)).isDirectory() ? filesUnder(child) : SOURCE.test(name) ? [child] : [];
  });
}

/** The most specific layer a file belongs to (lib/db/store/ before lib/db/), by its index in LAYERS. */
function layerOf(file: string): number {
  let best = -1;
  let length = 0;
  LAYERS.forEach(([, prefixes], index) => {
    for (const prefix of prefixes)
      if (file.startsWith(prefix) && prefix.length > length) [best, length] = [index, prefix.length];
  });
  return best;
}

/** The project files a file imports (static, dynamic and side-effect imports; `@/` is the project root). */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), "utf8");
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1]);
  return specifiers.flatMap((specifier) => {
    const target = specifier.startsWith("@/")
      ? specifier.slice(2)
      : specifier.startsWith(".")
        ? path.posix.join(path.posix.dirname(file), specifier)
        : null;
    if (target === null) return [];
    // A relative import written for Node's ESM (`./http.js`, the client package) names its TypeScript source.
    const endings = ["", ".ts", ".tsx", ".mts", ".mjs", "/index.ts"].map((ending) => target + ending);
    const found = [...endings, target.replace(/\.js$/, ".ts")].find((candidate) => {
      try {
        return statSync(path.join(root, candidate)).isFile();
      } catch {
        return false;
      }
    });
    return found && SOURCE.test(found) ? [found] : [];
  });
}

const files = LAYERS.flatMap(([, prefixes]) => prefixes.flatMap(filesUnder)).filter(
  (f) => !f.startsWith("lib/generated/"),
);
const graph = new Map(files.map((file) => [file, importsOf(file)]));

describe("layers", () => {
  it("reads the whole product: every layer has files, and they import each other", () => {
    LAYERS.slice(0, -1).forEach(([name], index) =>
      expect(files.filter((f) => layerOf(f) === index).length, name).toBeGreaterThan(0),
    );
    expect([...graph.values()].flat().length).toBeGreaterThan(100);
  });

  it("has no import from a lower layer to a higher one", () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => layerOf(target) < layerOf(file))
        .map((target) => `${file} (${LAYERS[layerOf(file)][0]}) -> ${target} (${LAYERS[layerOf(target)][0]})`),
    );
    expect(upward).toEqual([]);
  });

  it("has no circle of imports", () => {
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        circles.push([...trail.slice(trail.indexOf(file)), file].join(" -> "));
        return;
      }
      state.set(file, "open");
      for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
      state.set(file, "done");
    };
    for (const file of graph.keys()) visit(file, []);
    expect(circles).toEqual([]);
  });
});
