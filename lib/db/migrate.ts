import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";

/**
 * Applies prisma/migrations/<name>/migration.sql in name order and records each
 * in _prisma_migrations exactly as `prisma migrate deploy` does, so either tool
 * can take over from the other. Serialised across processes by Prisma's own
 * advisory lock id.
 */
const PRISMA_MIGRATE_LOCK = 72707369;

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(): Promise<Migration[]> {
  const dir = path.join(process.cwd(), "prisma", "migrations");
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

/** Returns the names of the migrations it applied. */
export async function migrate(connectionString: string): Promise<string[]> {
  const migrations = await readMigrations();
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK]);
    // Only when missing: CREATE ... IF NOT EXISTS needs the CREATE privilege even when the table
    // exists, and a runtime role that may only read and write data must start on an up-to-date database.
    const { rows: found } = await client.query<{ exists: boolean }>(
      `SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS exists`,
    );
    if (!found[0].exists) await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations"
       WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const done: string[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new Error(`Migration ${migration.name} was changed after it was applied`);
        }
        continue;
      }
      await apply(client, migration);
      done.push(migration.name);
    }
    return done;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK]).catch(() => {});
    await client.end();
  }
}

async function apply(client: pg.Client, migration: Migration): Promise<void> {
  const id = randomUUID();
  await client.query("BEGIN");
  try {
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), 0)`,
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.sql);
    await client.query(
      `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
      [id],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  }
}
