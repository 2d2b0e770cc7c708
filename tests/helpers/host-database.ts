import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type pg from "pg";
import { applyMigrations } from "@/lib/db/migrate";
import type { TestDatabase } from "./db";
import { createEmptyDatabase } from "./host-install";

/** The fixture host's own migration, which made its tables. */
export const HOST_MIGRATION = "20250301000000_crm";

/** An empty database with the host's own migration applied, as `prisma migrate deploy` left it. */
export async function hostDatabase(host: string): Promise<TestDatabase> {
  const db = await createEmptyDatabase();
  const sql = readFileSync(path.join(host, "prisma/migrations", HOST_MIGRATION, "migration.sql"), "utf8");
  const checksum = createHash("sha256").update(sql).digest("hex");
  await applyMigrations(db.url, [{ name: HOST_MIGRATION, sql, checksum, earlierChecksums: [] }]);
  return db;
}

/** The database's own objects in the public schema, by kind and name (a function by its signature). */
export async function catalog(sql: pg.Pool): Promise<string[]> {
  const { rows } = await sql.query<{ name: string }>(`
    SELECT 'table ' || tablename AS name FROM pg_tables WHERE schemaname = 'public'
    UNION ALL SELECT 'function ' || oid::regprocedure::text FROM pg_proc WHERE pronamespace = 'public'::regnamespace
    UNION ALL SELECT 'trigger ' || c.relname || '.' || tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE NOT t.tgisinternal AND c.relnamespace = 'public'::regnamespace
    UNION ALL SELECT 'index ' || indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
    ORDER BY 1`);
  return rows.map((r) => r.name);
}
