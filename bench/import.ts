// The importer's throughput beside the raw POST rate at the same concurrency, against
// a running service (bench/run.ts calls it; `import` and `ratios.importOverPost` in
// bench/results/latest.json). The goal: the importer at >= 0.8 of raw POST.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { DEFAULT_CONCURRENCY, EXIT, runImport } from "@/lib/importer/run";

export interface ImportBench {
  rows: number;
  concurrency: number;
  rowsPerSecond: number;
  postRpsAtSameConcurrency: number;
}

const ROWS = 5_000;

/** Row i of the benchmark file: distinct leads of one source, every optional field omitted. */
const row = (run: string, i: number) => `Bench Import ${run} ${i},01${String(10_000_000 + i)},Bench Import Source`;

export async function benchImport(baseUrl: string, apiKey: string, rows = ROWS): Promise<ImportBench> {
  const concurrency = DEFAULT_CONCURRENCY;
  const body = JSON.stringify({
    leadName: "Bench Import Post",
    leadMobileNumber: "012-345 6789",
    referrer: "Bench Import Source",
  });
  // The same number of POSTs as the import sends, so both meet the same table sizes.
  const postStarted = performance.now();
  const post = await autocannon({
    url: `${baseUrl}/api/leads`,
    method: "POST",
    connections: concurrency,
    amount: rows,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body,
  });
  const postSeconds = (performance.now() - postStarted) / 1000;
  const failed = post.errors + post.timeouts + post.non2xx;
  if (failed) throw new Error(`raw POST: ${failed} failed requests of ${post.requests.total}`);

  const dir = await mkdtemp(path.join(tmpdir(), "lead-import-bench-"));
  try {
    const file = path.join(dir, "leads.csv");
    const run = Date.now().toString(36);
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
    return {
      rows,
      concurrency,
      rowsPerSecond: Math.round((rows / seconds) * 10) / 10,
      postRpsAtSameConcurrency: Math.round((post.requests.total / postSeconds) * 10) / 10,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
