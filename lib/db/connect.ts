import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { sendPreparedThrough } from "@/lib/db/prepared";
import { keepReadBudget, ReadBudget, readConnections } from "@/lib/db/read-budget";
import { recoveringPlanChanges, StatementNames } from "@/lib/db/statements";
import { NUMERIC_SETTINGS } from "@/lib/settings.mjs";

export type Db = PrismaClient;

/**
 * How long a query waits for a pooled connection (or for a new one to open) before it
 * fails as `pool-timeout` / `connect-timeout`. Reads and writes wait the same: the
 * listing's transaction waits for its connection a little longer than the pool does,
 * so the pool's own limit decides for both (with 2 s for reads and 5 s for writes,
 * 630 of 956 deep-offset GETs failed while POSTs still waited).
 */
export const POOL_WAIT_MS = 5_000;
/** The server cancels a statement after this (`statement-timeout`), a host lock included. */
export const STATEMENT_TIMEOUT_MS = 15_000;
/**
 * A database that stops answering (frozen, cut off by the network) cannot enforce
 * statement_timeout: without a client-side limit a query on a pooled connection
 * waited forever. Just above the server's limit, so a live database's own cancel wins.
 */
const QUERY_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 1_000;
/** Connections per process unless DATABASE_POOL_SIZE says otherwise. */
export const DEFAULT_POOL_SIZE = NUMERIC_SETTINGS.DATABASE_POOL_SIZE.fallback;

/**
 * How statements are sent (DATABASE_STATEMENTS). `named`: prepared once per connection
 * and reused, for a direct connection or a pooler that tracks prepared statements
 * (PgBouncer >= 1.21 with max_prepared_statements > 0). `unnamed`: parsed and planned on
 * every call, for a transaction pooler that does not (Debian 12's PgBouncer 1.18), where a
 * name prepared on one server connection is unknown on the next (docs/host-guide.md,
 * "Connection poolers").
 */
export const STATEMENT_MODES = ["named", "unnamed"] as const;
export type StatementMode = (typeof STATEMENT_MODES)[number];

/** DATABASE_STATEMENTS, `named` when unset; any other value stops the start with a sentence saying so. */
export function statementModeOf(value = process.env.DATABASE_STATEMENTS): StatementMode {
  if (value === undefined || value === "") return "named";
  if ((STATEMENT_MODES as readonly string[]).includes(value)) return value as StatementMode;
  throw new Error(`DATABASE_STATEMENTS must be ${STATEMENT_MODES.join(" or ")}`);
}

/**
 * The one way this project opens the service's database: the server process
 * (lib/db/prisma.ts), the scripts and the tests. Pool limits and timeouts as above;
 * named prepared statements that recover from host DDL (lib/db/statements.ts), or
 * unnamed ones (see StatementMode); the share of the pool read operations may hold
 * (lib/db/read-budget.ts).
 */
export function createDatabaseClient(
  connectionString: string,
  poolSize = DEFAULT_POOL_SIZE,
  statements = statementModeOf(),
): Db {
  const names = statements === "named" ? new StatementNames() : undefined;
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    connectionTimeoutMillis: POOL_WAIT_MS,
    idleTimeoutMillis: 30_000,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
  });
  // The pool is made here so that the creation statement can go straight to it (lib/db/prepared.ts);
  // the adapter ends it on $disconnect and keeps an idle connection's error from crashing the server.
  // Not a literal: Prisma 6's adapter takes no statementNameGenerator, and sends the statements it is given unnamed.
  const options = { statementNameGenerator: names?.nameOf, disposeExternalPool: true };
  const adapter = new PrismaPg(pool, options);
  const client = new PrismaClient({
    // Unnamed statements are planned on every call, so host DDL cannot leave a stale plan behind.
    adapter: names ? recoveringPlanChanges(adapter, names) : adapter,
    // Prisma's defaults (2 s to start, 5 s to finish) made reads fail sooner than writes under
    // the same load or host lock; with these, the pool and the statement timeout decide for both.
    transactionOptions: { maxWait: POOL_WAIT_MS + 1_000, timeout: QUERY_TIMEOUT_MS + 1_000 },
  });
  sendPreparedThrough(client, pool, names);
  keepReadBudget(client, new ReadBudget(readConnections(poolSize)));
  return client;
}
