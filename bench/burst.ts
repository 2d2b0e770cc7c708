// A burst of POSTs after a steady load: 2,000 connections at once against the service that 16 steady connections
// measured just before, with every answer counted by status and every 201 looked up in the database (bench/README.md,
// "Method"). Part of `npm run bench`; standalone, after `npm run build`:
//   npx tsx bench/burst.ts
import { pathToFileURL } from "node:url";
import { Agent, request } from "node:http";
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

/** How long the load generator waits for an answer before it counts the request as unanswered, as autocannon does. */
const ANSWER_TIMEOUT_MS = 10_000;

/**
 * POSTs at `connections` for `seconds`, each lead named `<prefix> <n>`, one request at a time per connection; a
 * caller refused 429 CREATION_BUSY waits its Retry-After before it sends again, as the spec and the typed client do
 * (bench/README.md, "Method"). The answers by status, the 201s' p99, and which names were created or refused.
 */
async function post(url: string, prefix: string, connections: number, seconds: number): Promise<Phase> {
  // One agent of one connection per caller: each caller comes back on its own connection, as a client does.
  const agents = Array.from({ length: connections }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
  const latencies: number[] = [];
  const names: Phase["names"] = { created: [], refused: [] };
  const failed = { status500: 0, other: 0 };
  let endAt = Infinity;
  let sent = 0;
  const caller = async (agent: Agent) => {
    while (performance.now() < endAt) {
      const name = `${prefix} ${++sent}`;
      const startedAt = performance.now();
      const answer = await send(url, agent, name);
      if (answer.status === 201) {
        latencies.push(performance.now() - startedAt);
        names.created.push(name);
      } else if (answer.status === 429 && answer.busy && answer.retryAfterS) {
        names.refused.push(name);
        await new Promise((resolve) => setTimeout(resolve, answer.retryAfterS! * 1000));
      } else if (answer.status === 500) failed.status500++;
      else failed.other++;
    }
  };
  try {
    await Promise.all(agents.map((agent) => opened(url, agent)));
    endAt = performance.now() + seconds * 1000;
    await Promise.all(agents.map(caller));
  } finally {
    for (const agent of agents) agent.destroy();
  }
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))];
  return {
    ...failed,
    created: names.created.length,
    refused: names.refused.length,
    p99Ms: p99 === undefined ? 0 : round(p99),
    names,
  };
}

/**
 * Opens the agent's connection with a GET /api/health/live: Node accepts one connection per turn of its loop
 * (libuv 1.45 and later), so on a loaded server a connection opened with its POST would wait seconds before it is read
 * (bench/README.md, "Method").
 */
function opened(url: string, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/health/live`, { agent }, (res) => res.resume().on("end", resolve));
    req.on("error", reject);
    req.end();
  });
}

/** One POST: its status (0 for none in time or a connection error), whether it was CREATION_BUSY, and Retry-After. */
function send(
  url: string,
  agent: Agent,
  name: string,
): Promise<{ status: number; busy?: boolean; retryAfterS?: number }> {
  const body = JSON.stringify({ ...leadBody, leadName: name });
  const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
  return new Promise((resolve) => {
    const req = request(`${url}/api/leads`, { method: "POST", agent, headers, timeout: ANSWER_TIMEOUT_MS }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        const retryAfter = Number(res.headers["retry-after"]);
        resolve({
          status: res.statusCode!,
          busy: text.includes('"CREATION_BUSY"'),
          retryAfterS: retryAfter > 0 ? retryAfter : undefined,
        });
      });
      res.on("error", () => resolve({ status: 0 }));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve({ status: 0 }));
    req.end(body);
  });
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
