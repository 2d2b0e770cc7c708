// POST /api/leads: throughput, latency and CPU per request of the service, the floor (without and with the creation
// statement) and the bare server per connection count, and the creation statement driven directly through pg.
import type pg from "pg";
import { type CpuMs, withCpu } from "./cpu";
import { benchLead, createLeadWithPg } from "./lead-transaction";
import { load, round, type Load } from "./load";
import type { Server, Servers } from "./servers";

export const CONNECTIONS = [1, 4, 16, 64];
const POST_SECONDS = Number(process.env.BENCH_POST_SECONDS ?? 6);

export interface PostFigures {
  serviceRps: number;
  floorRps: number;
  floorWithStatementRps: number;
  bareRps: number;
  databaseRps: number;
  serviceP50Ms: number;
  serviceP99Ms: number;
  floorP50Ms: number;
  floorP99Ms: number;
  floorWithStatementP50Ms: number;
  floorWithStatementP99Ms: number;
  bareP50Ms: number;
  bareP99Ms: number;
  /** The service's POSTs refused with 429 CREATION_BUSY in its median run: over its line, it sheds load. */
  serviceRefused: number;
}

export type PostCpu = Record<keyof Servers, CpuMs>;

const SERVERS = ["service", "floor", "floorWithStatement", "bare"] as const satisfies (keyof Servers)[];

const postTo = (server: Server, connections: number, seconds: number) =>
  load(`${server.url}${server.postPath}`, connections, seconds, "POST");

/**
 * How long each server takes POSTs at 16 connections before anything is measured: the service's CPU per POST keeps
 * falling while V8 compiles its hot paths (docs/decisions.md, "Benchmark warm-up and rounds"). bench/profile.ts warms
 * the same way.
 */
export const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 20);
/**
 * Runs per server and connection count, taken in turn (turnOf), each figure the median of its runs: on shared cores
 * one run moves more than the differences the ratios are meant to show (docs/decisions.md, "Benchmark warm-up and
 * rounds").
 */
const ROUNDS = Number(process.env.BENCH_POST_ROUNDS ?? 3);

/** Warms every server's POST path, so that first-request work (JIT, statement preparation) is not measured. */
export async function warmPost(servers: Servers): Promise<void> {
  for (const server of Object.values(servers)) await postTo(server, 16, WARM_SECONDS);
}

/** One POST run per connection count, each server in turn, with its CPU per request. */
export async function measurePost(
  servers: Servers,
  pool: pg.Pool,
  databaseDir: string,
): Promise<{ post: Record<string, PostFigures>; cpu: Record<string, PostCpu> }> {
  const post: Record<string, PostFigures> = {};
  const cpu: Record<string, PostCpu> = {};
  for (const connections of CONNECTIONS) {
    console.log(`POST at ${connections} connections...`);
    const runs: Record<keyof Servers, Measured[]> = { service: [], floor: [], floorWithStatement: [], bare: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of turnOf(SERVERS, round)) {
        const server = servers[name];
        runs[name].push(await withCpu(server.group, databaseDir, () => postTo(server, connections, POST_SECONDS)));
      }
    }
    const [service, floor, floorWithStatement, bare] = SERVERS.map((name) => medianRun(runs[name]));
    cpu[connections] = {
      service: service.cpuMs,
      floor: floor.cpuMs,
      floorWithStatement: floorWithStatement.cpuMs,
      bare: bare.cpuMs,
    };
    post[connections] = {
      serviceRps: service.rps,
      floorRps: floor.rps,
      floorWithStatementRps: floorWithStatement.rps,
      bareRps: bare.rps,
      databaseRps: await databaseLimit(pool, connections, POST_SECONDS),
      serviceRefused: service.refused,
      ...latency("service", service),
      ...latency("floor", floor),
      ...latency("floorWithStatement", floorWithStatement),
      ...latency("bare", bare),
    } as PostFigures;
  }
  return { post, cpu };
}

/**
 * The order of one round of runs taken in turn: each round starts one later than the last, so that what a run leaves
 * behind (PostgreSQL's deferred work: autovacuum, checkpoints) falls on each in turn, not always on the first.
 */
export function turnOf<T>(items: readonly T[], round: number): T[] {
  const start = round % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

export type Measured = Load & { cpuMs: CpuMs };

/** Each figure of a server's runs at one connection count: its median over the runs. */
export function medianRun(runs: Measured[]): Measured {
  const median = (pick: (run: Measured) => number) => {
    const sorted = runs.map(pick).sort((a, b) => a - b);
    return sorted[(sorted.length - 1) >> 1];
  };
  return {
    rps: median((r) => r.rps),
    p50: median((r) => r.p50),
    p99: median((r) => r.p99),
    requests: median((r) => r.requests),
    refused: median((r) => r.refused),
    cpuMs: {
      server: median((r) => r.cpuMs.server),
      database: median((r) => r.cpuMs.database),
      machine: median((r) => r.cpuMs.machine),
    },
  };
}

function latency(name: keyof Servers, result: Load) {
  return { [`${name}P50Ms`]: result.p50, [`${name}P99Ms`]: result.p99 };
}

/** Runs the creation statement directly through pg, `connections` at a time. */
async function databaseLimit(pool: pg.Pool, connections: number, seconds: number): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        await createLeadWithPg(pool, benchLead);
        done++;
      }
    }),
  );
  return round(done / seconds);
}
