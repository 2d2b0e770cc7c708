import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { sendPreparedThrough } from "@/lib/db/prepared";
import { creationConnections, CreationBudget, keepCreationBudget } from "@/lib/db/creation-budget";
import { keepReadBudget, ReadBudget, readConnections } from "@/lib/db/read-budget";
import { recoveringPlanChanges, StatementNames } from "@/lib/db/statements";
import { NUMERIC_SETTINGS } from "@/lib/settings.mjs";

export type Db = PrismaClient;

/**
 * How long a query waits for a pooled connection (or a new one) before it fails as `pool-timeout` /
 * `connect-timeout`. Reads and writes wait the same, so the pool's limit decides for both (docs/decisions.md,
 * "Reads and writes wait the same for a connection").
 */
export const POOL_WAIT_MS = 5_000;
/** The server cancels a statement after this (`statement-timeout`), a host lock included. */
export const STATEMENT_TIMEOUT_MS = 15_000;
/**
 * A frozen or cut-off database cannot enforce statement_timeout, so a client-side limit stops the wait. Just above
 * the server's limit, so a live database's own cancel wins.
 */
const QUERY_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 1_000;
/** Connections per process unless DATABASE_POOL_SIZE says otherwise. */
export const DEFAULT_POOL_SIZE = NUMERIC_SETTINGS.DATABASE_POOL_SIZE.fallback;

/**
 * How statements are sent (DATABASE_STATEMENTS): `named`, prepared once per connection, or `unnamed`, for a
 * transaction pooler that does not track prepared statements (docs/host-guide.md, "Connection poolers").
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
 * The one way this project opens the service's database: the server process, the scripts and the tests. Pool
 * limits, statement modes (lib/db/statements.ts) and the read and creation budgets apply to all of them.
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
    // Above the pool's wait and the query timeout, so those decide for reads and writes alike (docs/decisions.md,
    // "Reads and writes wait the same for a connection").
    transactionOptions: { maxWait: POOL_WAIT_MS + 1_000, timeout: QUERY_TIMEOUT_MS + 1_000 },
  });
  sendPreparedThrough(client, pool, names);
  keepReadBudget(client, new ReadBudget(readConnections(poolSize)));
  keepCreationBudget(client, new CreationBudget(creationConnections(poolSize)));
  return client;
}
