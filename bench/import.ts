// The importer's throughput beside the raw POST rate at the same concurrency (bench/README.md, "Method"). Part of
// `npm run bench`; standalone, after `npm run build`:
//   npx tsx bench/import.ts
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { DEFAULT_CONCURRENCY, EXIT, runImport } from "@/lib/importer/run";
import { freePort, startProcessGroup } from "@/scripts/process-group";
import { withBenchDatabase } from "./data";
import { KEY, load, round2 } from "./load";
import { turnOf, WARM_SECONDS } from "./post";

export interface ImportBench {
  rows: number;
  concurrency: number;
  /** Median of the rounds. */
  rowsPerSecond: number;
  postRpsAtSameConcurrency: number;
  /**
   * Each round's figures, with the CPU this process spent per row and per raw POST (the importer's client side against
   * autocannon's): on shared cores it is taken from the server, and it moves less with the machine's load than a rate.
   */
  rounds: { rowsPerSecond: number; postRps: number; importCpuMsPerRow: number; postCpuMsPerRequest: number }[];
}

const ROWS = 5_000;
/** Raw POST and the import taken in turn, each figure the median of its rounds, as the POST figures are. */
const ROUNDS = Number(process.env.BENCH_POST_ROUNDS ?? 3);

/** Row i of the benchmark file: distinct leads of one source, every optional field omitted. */
const row = (run: string, i: number) => `Bench Import ${run} ${i},01${String(10_000_000 + i)},Bench Import Source`;

export async function benchImport(baseUrl: string, apiKey: string, rows = ROWS): Promise<ImportBench> {
  const concurrency = DEFAULT_CONCURRENCY;
  const rounds: ImportBench["rounds"] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const run = `${Date.now().toString(36)}r${round}`;
    const measures = {
      post: () => rawPostRate(baseUrl, apiKey, concurrency, rows),
      imported: () => importRate(baseUrl, apiKey, concurrency, rows, run),
    };
    const taken = {} as Record<keyof typeof measures, { value: number; cpuMs: number }>;
    for (const kind of turnOf(["post", "imported"] as const, round)) taken[kind] = await withCpuMs(measures[kind]);
    const { post, imported } = taken;
    rounds.push({
      rowsPerSecond: round1(imported.value),
      postRps: round1(post.value),
      importCpuMsPerRow: round2(imported.cpuMs / rows),
      postCpuMsPerRequest: round2(post.cpuMs / rows),
    });
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[(values.length - 1) >> 1];
  return {
    rows,
    concurrency,
    rowsPerSecond: median(rounds.map((r) => r.rowsPerSecond)),
    postRpsAtSameConcurrency: median(rounds.map((r) => r.postRps)),
    rounds,
  };
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** The value `measure` gives and the CPU ms this process spent meanwhile (user and system). */
async function withCpuMs<T>(measure: () => Promise<T>): Promise<{ value: T; cpuMs: number }> {
  const before = process.cpuUsage();
  const value = await measure();
  const { user, system } = process.cpuUsage(before);
  return { value, cpuMs: (user + system) / 1000 };
}

/** Requests per second of `rows` POSTs at `concurrency`: as many as the import sends, so both meet the same table. */
async function rawPostRate(baseUrl: string, apiKey: string, concurrency: number, rows: number): Promise<number> {
  const started = performance.now();
  const post = await autocannon({
    url: `${baseUrl}/api/leads`,
    method: "POST",
    connections: concurrency,
    amount: rows,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      leadName: "Bench Import Post",
      leadMobileNumber: "012-345 6789",
      referrer: "Bench Import Source",
    }),
  });
  const seconds = (performance.now() - started) / 1000;
  const failed = post.errors + post.timeouts + post.non2xx;
  if (failed) throw new Error(`raw POST: ${failed} failed requests of ${post.requests.total}`);
  return post.requests.total / seconds;
}

async function importRate(baseUrl: string, apiKey: string, concurrency: number, rows: number, run: string) {
  const dir = await mkdtemp(path.join(tmpdir(), "lead-import-bench-"));
  try {
    const file = path.join(dir, "leads.csv");
    const lines = ["leadName,leadMobileNumber,referrer", ...Array.from({ length: rows }, (_, i) => row(run, i + 1))];
    await writeFile(file, `${lines.join("\n")}\n`);
    const started = performance.now();
    const result = await runImport({
      file,
      baseUrl,
      apiKey,
      concurrency,
      dryRun: false,
      json: false,
      ledgerPath: `${file}.ledger.jsonl`,
      resendUnreconciled: false,
    });
    const seconds = (performance.now() - started) / 1000;
    if (result.exitCode !== EXIT.OK) throw new Error(`import exited ${result.exitCode}`);
    return rows / seconds;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Alone (after `npm run build`): the service on an embedded PostgreSQL of its own, warmed up as bench/run.ts warms it.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await withBenchDatabase(async (databaseUrl) => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const service = await startProcessGroup(
      "node",
      ["lib/runtime/start.mjs", "--no-build"],
      { DATABASE_URL: databaseUrl, LEADS_API_KEY: KEY, PORT: String(port) },
      `${url}/api/leads/sources`,
    );
    try {
      await load(`${url}/api/leads`, 16, WARM_SECONDS, "POST");
      return await benchImport(url, KEY);
    } finally {
      await service.stop();
    }
  });
  console.log(
    JSON.stringify({
      import: figures,
      importOverPost: round2(figures.rowsPerSecond / figures.postRpsAtSameConcurrency),
    }),
  );
}
