// POST /api/leads: throughput, latency and CPU per request of the service, the
// framework floor and the bare server at each connection count, and the creation
// statement driven directly through pg (the database's own limit).
import type pg from "pg";
import type { CreateLeadInput } from "@/lib/leads/schemas";
import { type CpuMs, withCpu } from "./cpu";
import { createLeadWithPg } from "./lead-transaction";
import { leadBody, load, round, type Load } from "./load";
import type { Server, Servers } from "./servers";

export const CONNECTIONS = [1, 4, 16, 64];
const POST_SECONDS = Number(process.env.BENCH_POST_SECONDS ?? 8);

export interface PostFigures {
  serviceRps: number;
  floorRps: number;
  bareRps: number;
  databaseRps: number;
  serviceP50Ms: number;
  serviceP99Ms: number;
  floorP50Ms: number;
  floorP99Ms: number;
  bareP50Ms: number;
  bareP99Ms: number;
}

export type PostCpu = Record<keyof Servers, CpuMs>;

const postTo = (server: Server, connections: number, seconds: number) =>
  load(`${server.url}${server.postPath}`, connections, seconds, "POST");

/** Warms every server's POST path once, so first-request work (JIT, statement preparation) is not measured. */
export async function warmPost(servers: Servers): Promise<void> {
  for (const server of Object.values(servers)) await postTo(server, 4, 2);
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
    const run = (server: Server) => withCpu(server.group, databaseDir, () => postTo(server, connections, POST_SECONDS));
    const service = await run(servers.service);
    const floor = await run(servers.floor);
    const bare = await run(servers.bare);
    cpu[connections] = { service: service.cpuMs, floor: floor.cpuMs, bare: bare.cpuMs };
    post[connections] = {
      serviceRps: service.rps,
      floorRps: floor.rps,
      bareRps: bare.rps,
      databaseRps: await databaseLimit(pool, connections, POST_SECONDS),
      ...latency("service", service),
      ...latency("floor", floor),
      ...latency("bare", bare),
    } as PostFigures;
  }
  return { post, cpu };
}

function latency(name: keyof Servers, result: Load) {
  return { [`${name}P50Ms`]: result.p50, [`${name}P99Ms`]: result.p99 };
}

/** Runs the creation statement directly through pg, `connections` at a time. */
async function databaseLimit(pool: pg.Pool, connections: number, seconds: number): Promise<number> {
  const input = { ...leadBody, leadMobileNumber: "60123456789" } as CreateLeadInput;
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        await createLeadWithPg(pool, input);
        done++;
      }
    }),
  );
  return round(done / seconds);
}
