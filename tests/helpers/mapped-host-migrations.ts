import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseHostNames, type HostNames } from "@/lib/db/host-names";
import { applyMigrations, readMigrations, type Migration } from "@/lib/db/migrate";
import { NAMES_MIGRATION } from "@/lib/db/migration-objects.mjs";
import { namesMigration } from "@/scripts/host/names-migration";
import { renderMigration } from "@/scripts/host/render-migration";
import type { TestDatabase } from "./db";
import { MAPPED_HOST, MAPPED_HOST_RENAMES, MAPPED_HOST_TABLES, RENAMED_MAPPED_HOST } from "./mapped-host";

/** The module's own names: the file on disk, whatever a test mocks. */
export const ownNames = (): HostNames => parseHostNames(JSON.parse(readFileSync("lib/db/host-names.json", "utf8")));

/** A migration of `sql` named `name`, with its checksum. */
export const migrationOf = (name: string, sql: string): Migration => ({
  name,
  sql,
  checksum: createHash("sha256").update(sql).digest("hex"),
  earlierChecksums: [],
});

/** The module's migrations rendered with `names`, as an install writes them; host_tables is never a host's. */
export async function mappedMigrations(names: HostNames): Promise<Migration[]> {
  const own = ownNames();
  return (await readMigrations())
    .filter((migration) => !migration.name.endsWith("_host_tables"))
    .map((migration) => migrationOf(migration.name, renderMigration(migration.sql, own, names)));
}

/** Applies the module's migrations, rendered with `names`, to a database holding the host's tables. */
export async function migrateMappedHost(db: Pick<TestDatabase, "url">, names: HostNames): Promise<void> {
  await applyMigrations(db.url, await mappedMigrations(names), 10);
}

/**
 * The mapped host, migrated, then renamed by a migration of its own, then given the names migration: the module's
 * migrations as it applied them (in the names of their day, then that one).
 */
export async function moveMappedHost(db: Pick<TestDatabase, "url" | "sql">): Promise<Migration[]> {
  await db.sql.query(MAPPED_HOST_TABLES);
  await migrateMappedHost(db, MAPPED_HOST);
  await db.sql.query(MAPPED_HOST_RENAMES);
  const sql = namesMigration(await readMigrations(), ownNames(), MAPPED_HOST, RENAMED_MAPPED_HOST);
  const applied = [...(await mappedMigrations(MAPPED_HOST)), migrationOf(`20990101000000${NAMES_MIGRATION}`, sql)];
  await applyMigrations(db.url, applied, 10);
  return applied;
}
