// The server CPU the optional features (a rate limit, metrics) cost per POST at 16 connections (bench/README.md,
// "Method"). Part of `npm run bench`; standalone, after `npm run build`:
//   npx tsx bench/options.ts
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";
import { type CpuMs, withCpu } from "./cpu";
import { withBenchDatabase } from "./data";
import { KEY, load, round2, type Load } from "./load";
import { turnOf, WARM_SECONDS } from "./post";

export interface OptionFigures {
  connections: number;
  /** Server CPU ms per POST: median of the rounds. */
  plainServerCpuMs: number;
  rateLimitedServerCpuMs: number;
  metricsServerCpuMs: number;
  plainRps: number;
  rateLimitedRps: number;
  metricsRps: number;
}

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_POST_SECONDS ?? 6);
// Five, not the POST runs' three: both ratios sit near 1, where one run's 10% between processes would decide them.
const ROUNDS = Number(process.env.BENCH_POST_ROUNDS ?? 5);
const VARIANTS = ["plain", "rateLimited", "metrics"] as const;

export async function measureOptions(databaseUrl: string, databaseDir: string): Promise<OptionFigures> {
  let exported = 0;
  const sink = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => (exported += chunk.length));
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  const metricsPort = await freePort();
  const env: Record<(typeof VARIANTS)[number], Record<string, string>> = {
    plain: {},
    rateLimited: { LEADS_RATE_LIMIT_CREATE: "999999999/s" },
    metrics: {
      LEADS_METRICS_PORT: String(metricsPort),
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `http://127.0.0.1:${(sink.address() as AddressInfo).port}/v1/metrics`,
      OTEL_METRIC_EXPORT_INTERVAL: "1000",
    },
  };
  const groups: ProcessGroup[] = [];
  const scraper = setInterval(
    () =>
      void fetch(`http://127.0.0.1:${metricsPort}/metrics`)
        .then((r) => r.text())
        .catch(() => undefined),
    1000,
  );
  try {
    const urls: string[] = [];
    for (const variant of VARIANTS) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const serverEnv = { DATABASE_URL: databaseUrl, LEADS_API_KEY: KEY, PORT: String(port), ...env[variant] };
      groups.push(
        await startProcessGroup("node", ["lib/runtime/start.mjs", "--no-build"], serverEnv, `${url}/api/leads/sources`),
      );
      urls.push(`${url}/api/leads`);
    }
    for (const url of urls) await load(url, CONNECTIONS, WARM_SECONDS, "POST");
    const runs: (Load & { cpuMs: CpuMs })[][] = VARIANTS.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const i of turnOf([...VARIANTS.keys()], round))
        runs[i].push(await withCpu(groups[i], databaseDir, () => load(urls[i], CONNECTIONS, SECONDS, "POST")));
    }
    if (exported === 0) throw new Error("the metrics server exported nothing over OTLP");
    const median = (values: number[]) => values.sort((a, b) => a - b)[(values.length - 1) >> 1];
    const [plain, rateLimited, metrics] = runs.map((r) => ({
      cpu: median(r.map((x) => x.cpuMs.server)),
      rps: median(r.map((x) => x.rps)),
    }));
    return {
      connections: CONNECTIONS,
      plainServerCpuMs: plain.cpu,
      rateLimitedServerCpuMs: rateLimited.cpu,
      metricsServerCpuMs: metrics.cpu,
      plainRps: plain.rps,
      rateLimitedRps: rateLimited.rps,
      metricsRps: metrics.rps,
    };
  } finally {
    clearInterval(scraper);
    await Promise.all(groups.map((group) => group.stop()));
    await new Promise((resolve) => sink.close(resolve));
  }
}

/** The two ratios of bench/results/latest.json from these figures. */
export function optionRatios(figures: OptionFigures): Record<string, number> {
  return {
    postServerCpuRateLimitedOverPlainAt16: round2(figures.rateLimitedServerCpuMs / figures.plainServerCpuMs),
    postServerCpuMetricsOverPlainAt16: round2(figures.metricsServerCpuMs / figures.plainServerCpuMs),
  };
}

// Alone (after `npm run build`): its own embedded PostgreSQL with the run's sources and users.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await withBenchDatabase(measureOptions);
  console.log(JSON.stringify({ options: figures, ratios: optionRatios(figures) }, null, 2));
}
