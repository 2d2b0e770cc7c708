import { readdir, readFile } from "node:fs/promises";
import { afterAll, describe, expect, it } from "vitest";
import { applyMigrations, CHECKSUMS_FILE, migrate, readMigrations, type MigrationChecksums } from "@/lib/db/migrate";
import type { MigrationHistory } from "@/scripts/migration-checksums";
import { rowCounts, type TestDatabase } from "../helpers/db";
import { createEmptyDatabase } from "../helpers/host-install";
import { countDrift, sourceListVersion } from "../helpers/kept-counts";

/**
 * A migration that has landed never changes: each is held to its committed checksum. A database migrated by any
 * earlier commit of main that changed prisma/migrations (their migrations as that commit had them, kept in
 * tests/fixtures/migration-history.json by scripts/migration-checksums.ts) upgrades with today's runner, its rows and
 * every kept count intact.
 */
const checksums: MigrationChecksums = JSON.parse(await readFile(CHECKSUMS_FILE, "utf8"));
const history: MigrationHistory = JSON.parse(await readFile("tests/fixtures/migration-history.json", "utf8"));
const today = await readMigrations();
const opened: TestDatabase[] = [];

afterAll(() => Promise.all(opened.map((db) => db.sql.end())));

/** The host's data as the service and the host write it: sources, persons, records referred by both. */
async function writeHostData(db: TestDatabase, round: string): Promise<void> {
  await db.sql.query(
    `INSERT INTO customers (id, kind, name, source_type)
     SELECT 'src_${round}_' || g, 'source', 'Source ${round} ' || g, 'ads' FROM generate_series(1, 3) g;
     INSERT INTO customers (id, kind, name) SELECT 'per_${round}_' || g, 'person', 'Person ${round} ' || g FROM generate_series(1, 2) g;
     INSERT INTO referrals (referrer_customer_id, lead_name, status)
     SELECT CASE WHEN g % 4 = 0 THEN 'per_${round}_1' ELSE 'src_${round}_' || (g % 3 + 1) END, 'Lead ' || g, 'Pending'
     FROM generate_series(1, 60) g`,
  );
  await db.sql.query(
    `INSERT INTO referrals (referrer_customer_id, lead_name, status) VALUES ('src_${round}_1', 'One', 'Pending')`,
  );
  await db.sql.query(
    `UPDATE referrals SET referrer_customer_id = 'src_${round}_2' WHERE lead_name = 'Lead 1' AND referrer_customer_id LIKE '%${round}%'`,
  );
  await db.sql.query(`DELETE FROM referrals WHERE lead_name = 'Lead 2' AND referrer_customer_id LIKE '%${round}%'`);
}

describe("migrations that have landed", () => {
  it("each hold the checksum committed for it, and every committed one has its migration", async () => {
    const dirs = (await readdir("prisma/migrations", { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(Object.keys(checksums.landed).sort()).toEqual(dirs.sort());
    for (const { name, checksum } of today) expect(checksum, name).toBe(checksums.landed[name]);
  });

  it("accept only earlier texts that some earlier commit of main had", () => {
    const seen = new Set(history.commits.flatMap((c) => c.migrations.map((m) => `${m.name} ${m.checksum}`)));
    for (const [checksum, name] of Object.entries(checksums.earlier))
      expect(seen.has(`${name} ${checksum}`), name).toBe(true);
  });
});

describe("a database migrated by an earlier commit of main", () => {
  const [first, ...upgradable] = history.commits;
  const textOf = (name: string, checksum: string) =>
    history.texts[checksum] ?? today.find((m) => m.name === name && m.checksum === checksum)!.sql;
  const replay = async (commit: MigrationHistory["commits"][number]) => {
    const db = await createEmptyDatabase();
    opened.push(db);
    const migrations = commit.migrations.map(({ name, checksum }) => ({
      name,
      checksum,
      sql: textOf(name, checksum),
      earlierChecksums: [],
    }));
    await applyMigrations(db.url, migrations);
    return db;
  };

  it.each(upgradable.map((c) => [c.commit.slice(0, 7), c] as const))(
    "%s starts on today's migrations with its rows and every count intact",
    async (_, commit) => {
      const db = await replay(commit);
      await writeHostData(db, "before");
      const rowsBefore = await rowCounts(db.sql);
      const applied = await migrate(db.url);
      const pending = today.map((m) => m.name).filter((name) => !commit.migrations.some((m) => m.name === name));
      expect(applied).toEqual(pending);
      expect(await rowCounts(db.sql)).toEqual(rowsBefore);
      expect(await countDrift(db.sql)).toEqual([]);
      // And the counts keep following the host's writes, the list's version its changes, after the upgrade.
      const version = await sourceListVersion(db.sql);
      await writeHostData(db, "after");
      expect(await countDrift(db.sql)).toEqual([]);
      expect(await sourceListVersion(db.sql)).toBeGreaterThan(version);
      expect(await migrate(db.url)).toEqual([]);
    },
  );

  it("of the first commit, whose lead_intake kept no counts, is refused with the runner's sentence", async () => {
    const db = await replay(first);
    await expect(migrate(db.url)).rejects.toThrow(
      "Migration 20261122000100_lead_intake was changed after it was applied",
    );
  });
});
