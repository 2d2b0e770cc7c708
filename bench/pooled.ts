// POST from three server processes behind HAProxy on PgBouncer beside one process connected directly, at 64
// connections: what scaling out costs on the same cores (bench/README.md, "Method").
import type { StatementMode } from "@/lib/db/connect";
import { startNextServer, waitUntilReady, type NextServer } from "@/scripts/next-server";
import {
  pgbouncerTracksPreparedStatements,
  pgbouncerVersion,
  POOLER_POOL_SIZE,
  startLoadBalancer,
  startPgBouncer,
  type LoadBalancer,
  type PgBouncer,
} from "@/scripts/pooler";
import { KEY, load, type Load } from "./load";
import { turnOf, WARM_SECONDS } from "./post";
import type { Server } from "./servers";

export interface PooledFigures {
  connections: number;
  processes: number;
  pgbouncer: string;
  poolerServerConnections: number;
  statements: StatementMode;
  directRps: number;
  pooledRps: number;
  directP99Ms: number;
  pooledP99Ms: number;
}

const CONNECTIONS = 64;
const PROCESSES = 3;
const SECONDS = Number(process.env.BENCH_POST_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_POST_ROUNDS ?? 3);

export async function measurePooled(service: Server, databaseUrl: string): Promise<PooledFigures> {
  const statements: StatementMode = pgbouncerTracksPreparedStatements() ? "named" : "unnamed";
  const bouncer: PgBouncer = await startPgBouncer(
    databaseUrl,
    statements === "named" ? { maxPreparedStatements: 200 } : {},
  );
  const servers: NextServer[] = [];
  let balancer: LoadBalancer | undefined;
  try {
    const env = { DATABASE_URL: bouncer.url(databaseUrl), DATABASE_STATEMENTS: statements, LEADS_API_KEY: KEY };
    // One at a time: three builds' worth of start-up at once on 2 cores is slow, and not what is measured.
    for (let i = 0; i < PROCESSES; i++)
      servers.push(await startNextServer({ shape: "next-start", preload: true, env }));
    balancer = await startLoadBalancer(servers.map((s) => s.baseUrl));
    const pooledUrl = `${balancer.url}/api/leads`;
    const directUrl = `${service.url}${service.postPath}`;
    // Every process ready (start-up work done), then each the same warm-up as the one service had:
    // round robin gives each a third of the requests, so three times as long.
    await Promise.all(servers.map((s) => waitUntilReady(s.baseUrl)));
    await load(pooledUrl, 16, WARM_SECONDS * PROCESSES, "POST");
    const direct: Load[] = [];
    const pooled: Load[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [runs, url] of turnOf([[direct, directUrl] as const, [pooled, pooledUrl] as const], round))
        runs.push(await load(url, CONNECTIONS, SECONDS, "POST"));
    }
    const median = (runs: { rps: number; p99: number }[], pick: (r: { rps: number; p99: number }) => number) =>
      runs.map(pick).sort((a, b) => a - b)[(runs.length - 1) >> 1];
    return {
      connections: CONNECTIONS,
      processes: PROCESSES,
      pgbouncer: pgbouncerVersion().join("."),
      poolerServerConnections: POOLER_POOL_SIZE,
      statements,
      directRps: median(direct, (r) => r.rps),
      pooledRps: median(pooled, (r) => r.rps),
      directP99Ms: median(direct, (r) => r.p99),
      pooledP99Ms: median(pooled, (r) => r.p99),
    };
  } finally {
    await balancer?.stop();
    await Promise.all(servers.map((s) => s.group.stop()));
    await bouncer.stop();
  }
}
