// A burst of POSTs after a steady load: 2,000 connections at once against the service that 16 steady connections
// measured just before, with every answer counted by status and every 201 looked up in the database (bench/README.md,
// "Method"). Part of `npm run bench`; standalone, after `npm run build`:
//   npx tsx bench/burst.ts
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { freePort, startProcessGroup } from "@/scripts/process-group";
import { withBenchDatabase } from "./data";
import { KEY, leadBody, round, round2 } from "./load";
import { WARM_SECONDS } from "./post";

export interface BurstFigures {
  connections: number;
  seconds: number;
  createdPerSecond: number;
  steadyCreatedPerSecond: number;
  /** Definite refusals: 429 CREATION_BUSY, with Retry-After. */
  refused: number;
  status500: number;
  /** Any other answer, or none (a timeout or a connection error: such a lead may or may not be stored). */
  other: number;
  admittedP99Ms: number;
  steadyP99Ms: number;
  /** Whether every lead of the burst answered 201 is stored exactly once, and none refused is stored. */
  storedAsAnswered: boolean;
}

const STEADY_CONNECTIONS = 16;
const STEADY_SECONDS = 10;
const BURST_CONNECTIONS = 2_000;
const BURST_SECONDS = 20;

interface Phase {
  created: number;
  refused: number;
  status500: number;
  other: number;
  p99Ms: number;
  /** The lead names of the requests answered 201, and of those refused. */
  names: { created: string[]; refused: string[] };
}

/**
 * POSTs at `connections` for `seconds`, each lead named `<prefix> <n>` (one request in flight per connection, so its
 * context holds the name it sent): the answers by status, the 201s' p99, and which names were created or refused.
 */
async function post(url: string, prefix: string, connections: number, seconds: number): Promise<Phase> {
  const latencies: number[] = [];
  const names = { created: [] as string[], refused: [] as string[] };
  const phase = { status500: 0, other: 0 };
  let sent = 0;
  let instance: autocannon.Instance | undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: `${url}/api/leads`,
        connections,
        duration: seconds,
        requests: [
          {
            method: "POST",
            headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
            setupRequest: (request, context) => {
              const name = `${prefix} ${++sent}`;
              (context as { name?: string }).name = name;
              return { ...request, body: JSON.stringify({ ...leadBody, leadName: name }) };
            },
            onResponse: (status, body, context, headers) => {
              const { name } = context as { name: string };
              if (status === 201) names.created.push(name);
              else if (status === 429 && /CREATION_BUSY/.test(body) && retryAfter(headers)) names.refused.push(name);
              else if (status === 500) phase.status500++;
              else phase.other++;
            },
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
  instance!.on("response", (_client, status, _bytes, responseTime) => {
    if (status === 201) latencies.push(responseTime);
  });
  const result = await done;
  latencies.sort((a, b) => a - b);
  return {
    ...phase,
    other: phase.other + result.errors + result.timeouts,
    created: names.created.length,
    refused: names.refused.length,
    p99Ms: latencies.length ? round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))]) : 0,
    names,
  };
}

function retryAfter(headers: object | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === "retry-after");
}

/** Whether every lead answered 201 is stored exactly once, and no refused one at all. */
async function storedAsAnswered(pool: pg.Pool, prefix: string, names: Phase["names"]): Promise<boolean> {
  const { rows } = await pool.query<{ name: string; n: number }>(
    `SELECT lead_name AS name, count(*)::int AS n FROM referrals WHERE lead_name LIKE $1 GROUP BY lead_name`,
    [`${prefix} %`],
  );
  const stored = new Map(rows.map((row) => [row.name, row.n]));
  return names.created.every((name) => stored.get(name) === 1) && names.refused.every((name) => !stored.has(name));
}

/** The steady run, then the burst, on a warmed service at `url`. */
export async function measureBurst(url: string, pool: pg.Pool): Promise<BurstFigures> {
  const run = Date.now().toString(36);
  const steady = await post(url, `Steady ${run}`, STEADY_CONNECTIONS, STEADY_SECONDS);
  const burst = await post(url, `Burst ${run}`, BURST_CONNECTIONS, BURST_SECONDS);
  return {
    connections: BURST_CONNECTIONS,
    seconds: BURST_SECONDS,
    createdPerSecond: round(burst.created / BURST_SECONDS),
    steadyCreatedPerSecond: round(steady.created / STEADY_SECONDS),
    refused: burst.refused,
    status500: burst.status500 + steady.status500,
    other: burst.other + steady.other,
    admittedP99Ms: burst.p99Ms,
    steadyP99Ms: steady.p99Ms,
    storedAsAnswered: await storedAsAnswered(pool, `Burst ${run}`, burst.names),
  };
}

/** burstGoodputOverSteady, and the admitted p99 over the steady one. */
export function burstRatios(figures: BurstFigures): Record<string, number> {
  return {
    burstGoodputOverSteady: round2(figures.createdPerSecond / figures.steadyCreatedPerSecond),
    burstAdmittedP99OverSteady: round2(figures.admittedP99Ms / figures.steadyP99Ms),
  };
}

// Alone (after `npm run build`): the service on its own embedded PostgreSQL, warmed as the run warms it.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await withBenchDatabase(async (databaseUrl) => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { DATABASE_URL: databaseUrl, LEADS_API_KEY: KEY, PORT: String(port) };
    const group = await startProcessGroup(
      "node",
      ["lib/runtime/start.mjs", "--no-build"],
      env,
      `${url}/api/leads/sources`,
    );
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    try {
      await post(url, "Warm-up", STEADY_CONNECTIONS, WARM_SECONDS);
      return await measureBurst(url, pool);
    } finally {
      await pool.end();
      await group.stop();
    }
  });
  console.log(JSON.stringify({ burst: figures, ratios: burstRatios(figures) }, null, 2));
}
