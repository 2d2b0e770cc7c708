import type { StatementMode } from "@/lib/db/connect";
import { startNextServer, waitUntilReady, type NextServer, type NextShape } from "@/scripts/next-server";
import {
  pgbouncerTracksPreparedStatements,
  startLoadBalancer,
  startPgBouncer,
  type LoadBalancer,
  type PgBouncer,
} from "@/scripts/pooler";
import type { TestDatabase } from "./db";
import { createEmptyDatabase } from "./host-install";

/**
 * Three server processes behind HAProxy, on one PostgreSQL through PgBouncer in transaction mode with 8 server
 * connections (scripts/pooler.ts), as docs/host-guide.md ("Connection poolers") tells a host to run them: two
 * `next start` and one standalone `server.js`, each with the preload, started at the same moment on an empty
 * database. Statements are named where PgBouncer tracks them (1.21 and later, max_prepared_statements), unnamed
 * otherwise (Debian 12's 1.18).
 */
export const RIG_SHAPES: NextShape[] = ["next-start", "next-start", "standalone"];
export const RIG_STATEMENTS: StatementMode = pgbouncerTracksPreparedStatements() ? "named" : "unnamed";

export interface PooledRig {
  db: TestDatabase;
  bouncer: PgBouncer;
  /** DATABASE_URL through PgBouncer. */
  pooledUrl: string;
  /** The servers' environment: the pooled DATABASE_URL and DATABASE_STATEMENTS, then the caller's. */
  env: Record<string, string>;
  /** In RIG_SHAPES' order; a test that restarts one puts it back in its place. */
  servers: NextServer[];
  balancer: LoadBalancer;
  stop(): Promise<void>;
}

/** Starts the rig, `extra` in each server's environment, and waits until every server and the balancer are ready. */
export async function startPooledRig(extra: Record<string, string>): Promise<PooledRig> {
  const db = await createEmptyDatabase();
  const started: Partial<PooledRig> & { db: TestDatabase; servers: NextServer[] } = { db, servers: [] };
  const stop = async () => {
    await started.balancer?.stop();
    await Promise.all(started.servers.map((s) => s.group.stop()));
    await started.bouncer?.stop();
    await db.sql.end();
  };
  try {
    const bouncer = await startPgBouncer(db.url, RIG_STATEMENTS === "named" ? { maxPreparedStatements: 200 } : {});
    started.bouncer = bouncer;
    const pooledUrl = bouncer.url(db.url);
    const env = { DATABASE_URL: pooledUrl, DATABASE_STATEMENTS: RIG_STATEMENTS, ...extra };
    started.servers = await Promise.all(RIG_SHAPES.map((shape) => startNextServer({ shape, preload: true, env })));
    const balancer = await startLoadBalancer(started.servers.map((s) => s.baseUrl));
    started.balancer = balancer;
    await Promise.all(started.servers.map((s) => waitUntilReady(s.baseUrl)));
    await waitUntilReady(balancer.url);
    return { db, bouncer, pooledUrl, env, servers: started.servers, balancer, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
