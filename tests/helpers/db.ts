import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

export interface TestDatabase {
  url: string;
  name: string;
  /** A plain pg pool on the same database, for arranging data and checking rows. */
  sql: pg.Pool;
}

/** Connection URL of a database in the test cluster. */
export function databaseUrl(name: string): string {
  return inject("postgresUrl").replace("{db}", name);
}

/** Runs SQL on the cluster's maintenance database (CREATE DATABASE and the like). */
export async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl("postgres") });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * A fresh copy of the migrated template database. With `use: true` (the default)
 * it becomes this test file's DATABASE_URL, which the service's client reads on
 * its first query.
 */
export async function createTestDatabase({
  template = inject("templateDatabase"),
  use = true,
} = {}): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  const url = databaseUrl(name);
  if (use) process.env.DATABASE_URL = url;
  return { url, name, sql: new pg.Pool({ connectionString: url, max: 4 }) };
}

/** Number of source accounts. */
export async function sourceCount(sql: pg.Pool): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM customers WHERE kind = 'source'`);
  return rows[0].n;
}

/** Number of rows in each of the host tables the service writes. */
export async function rowCounts(sql: pg.Pool): Promise<Record<string, number>> {
  const { rows } = await sql.query<Record<string, number>>(`
    SELECT (SELECT count(*)::int FROM customers) AS customers,
           (SELECT count(*)::int FROM referrals) AS referrals,
           (SELECT count(*)::int FROM audit_entries) AS audit_entries,
           (SELECT count(*)::int FROM lead_source_names) AS lead_source_names,
           (SELECT count(*)::int FROM users) AS users`);
  return rows[0];
}
