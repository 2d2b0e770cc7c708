import { SpanKind, trace } from "@opentelemetry/api";
import type pg from "pg";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { planChanged, type StatementNames } from "@/lib/db/statements";
import type { Statement } from "@/lib/db/statement-template";

// Typed by PrismaClient, not connect.ts's Db: connect.ts imports this file.
interface Direct {
  pool: pg.Pool;
  /** Absent when statements are unnamed (DATABASE_STATEMENTS, lib/db/connect.ts). */
  names?: StatementNames;
}

// Kept on the client itself under a registered symbol, not in a module-level map: Next's build can give the
// instrumentation hook and a route their own copies of this module, while the client is one per process.
const DIRECT = Symbol.for("lead-intake-service.direct");
type WithDirect = PrismaClient & { [DIRECT]?: Direct };

/** The pg pool and statement names under a client's adapter (lib/db/connect.ts registers every client it makes). */
export function sendPreparedThrough(db: PrismaClient, pool: pg.Pool, names: StatementNames | undefined): void {
  Object.defineProperty(db, DIRECT, { value: { pool, names } satisfies Direct });
}

/** The pg pool's connections: in use, idle, and queries waiting for one (for the metrics). */
export function poolStateOf(db: PrismaClient): { used: number; idle: number; waiting: number } | undefined {
  const pool = (db as WithDirect)[DIRECT]?.pool;
  return pool && { used: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

/**
 * Runs one statement straight on the client's pg pool, around Prisma's raw-query pipeline (docs/decisions.md, "The
 * creation statement goes straight to the pg pool"). After host DDL (0A000) the names are renewed and the statement,
 * which did nothing, is sent once more (lib/db/statements.ts).
 */
export async function queryPrepared<Row>(db: PrismaClient, sql: Statement): Promise<Row[]> {
  const target = (db as WithDirect)[DIRECT];
  if (!target) throw new Error("queryPrepared needs a client from createDatabaseClient");
  // Prisma's instrumentation does not see this statement: its span, like Prisma's, has the SQL with placeholders, never
  // values.
  return tracer.startActiveSpan(
    "lead_intake:db_query",
    { kind: SpanKind.CLIENT, attributes: { "db.system": "postgresql", "db.query.text": sql.text } },
    async (span) => {
      try {
        return await send<Row>(target, sql);
      } finally {
        span.end();
      }
    },
  );
}

// Without a registered tracer provider (OTEL_EXPORTER_OTLP_ENDPOINT unset) this is OpenTelemetry's no-op tracer.
const tracer = trace.getTracer("lead-intake-service");

/**
 * Like queryPrepared, in a transaction whose statements PostgreSQL cancels after `timeoutMs` (lock waits included),
 * for a statement that must give up soon rather than hold a connection for the pool's statement timeout.
 */
export async function queryPreparedWithin<Row>(db: PrismaClient, sql: Statement, timeoutMs: number): Promise<Row[]> {
  const target = (db as WithDirect)[DIRECT];
  if (!target) throw new Error("queryPreparedWithin needs a client from createDatabaseClient");
  const client = await target.pool.connect();
  let broken: Error | undefined;
  const generation = target.names?.current ?? 0;
  try {
    await client.query(`BEGIN; SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}`);
    const rows = await sendOnce<Row>(client, target.names, sql);
    await client.query("COMMIT");
    return rows;
  } catch (error) {
    // As in any transaction (lib/db/statements.ts): new names for the next call, no retry of this one.
    if (planChanged(error)) target.names?.renew(generation);
    // A connection that cannot roll back is closed rather than pooled mid-transaction.
    await client.query("ROLLBACK").catch((rollbackError: Error) => (broken = rollbackError));
    throw error;
  } finally {
    client.release(broken);
  }
}

/** The statement sent once, named or not. */
async function sendOnce<Row>(
  pool: Pick<pg.Pool, "query">,
  names: StatementNames | undefined,
  sql: Statement,
): Promise<Row[]> {
  const query = names
    ? { name: names.name(sql.text), text: sql.text, values: sql.values }
    : { text: sql.text, values: sql.values };
  return (await pool.query(query)).rows as Row[];
}

async function send<Row>({ pool, names }: Direct, sql: Statement): Promise<Row[]> {
  if (!names) return sendOnce<Row>(pool, names, sql);
  const generation = names.current;
  try {
    return await sendOnce<Row>(pool, names, sql);
  } catch (error) {
    if (!planChanged(error)) throw error;
    names.renew(generation);
    return sendOnce<Row>(pool, names, sql);
  }
}
