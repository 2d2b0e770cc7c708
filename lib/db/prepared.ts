import type pg from "pg";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client";
import { statementName } from "./statement-name";

// Typed by PrismaClient, not client.ts's Db: client.ts imports this file.
type Db = PrismaClient;

const pools = new WeakMap<Db, pg.Pool>();

/** The pg pool under a client's adapter, for queryPrepared (lib/db/client.ts registers the server's client). */
export function sendPreparedThrough(db: Db, pool: pg.Pool): void {
  pools.set(db, pool);
}

/**
 * Runs one statement as a named prepared statement directly on the pg pool under
 * the client, around Prisma's raw-query pipeline: for the creation statement
 * 0.10 ms of the server's CPU per call against 0.29 ms through $queryRaw (16
 * concurrent calls in a side loop, promise hooks on as in Next). Same pool, same
 * timeouts, same statement names. Rows are as pg parses them (int4 and text as
 * number and string, as through Prisma); a unique violation is pg's error (see
 * isUniqueViolation). A client without a registered pool (scripts, tests that make
 * their own) runs the statement through $queryRaw.
 */
export async function queryPrepared<Row extends pg.QueryResultRow>(db: Db, sql: Prisma.Sql): Promise<Row[]> {
  const pool = pools.get(db);
  if (!pool) return db.$queryRaw<Row[]>(sql);
  const { rows } = await pool.query<Row>({ name: statementName(sql.text), text: sql.text, values: sql.values });
  return rows;
}
