import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseHostNames, type HostNames } from "@/lib/db/host-names";
import { applyMigrations, readMigrations } from "@/lib/db/migrate";
import { renderMigration } from "@/scripts/host/render-migration";
import type { TestDatabase } from "./db";

/**
 * Applies the module's migrations, rendered with `names` from the module's own (the file on disk, whatever a test
 * mocks), to a database holding the host's tables; host_tables is never a host's.
 */
export async function migrateMappedHost(db: Pick<TestDatabase, "url">, names: HostNames): Promise<void> {
  const own = parseHostNames(JSON.parse(readFileSync("lib/db/host-names.json", "utf8")));
  const rendered = (await readMigrations())
    .filter((migration) => !migration.name.endsWith("_host_tables"))
    .map((migration) => {
      const sql = renderMigration(migration.sql, own, names);
      return { ...migration, sql, checksum: createHash("sha256").update(sql).digest("hex"), earlierChecksums: [] };
    });
  await applyMigrations(db.url, rendered, 10);
}
