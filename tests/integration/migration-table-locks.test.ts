import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, MigrationLockTimeout, readMigrations, type Migration } from "@/lib/db/migrate";
import { createTestDatabase, type TestDatabase } from "../helpers/db";

/**
 * A pending migration that needs a lock on a host table a long transaction holds: its request waits at most 2 s at a
 * time, so the host's own queries on that table, queued behind it, are answered meanwhile; the run gives up after
 * LEADS_MIGRATION_LOCK_TIMEOUT with one sentence, and applies the migration once the transaction ends.
 */
const WAIT_SECONDS = 6;
const NEEDS_REFERRALS: Migration = {
  name: "29991231000000_needs_referrals",
  sql: "LOCK TABLE referrals IN ACCESS EXCLUSIVE MODE",
  checksum: "needs-referrals",
  earlierChecksums: [],
};

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
});

afterAll(async () => {
  await db?.sql.end();
});

describe("a pending migration behind a host's long transaction", () => {
  it("lets the host's queries through while it waits, gives up in one sentence, and applies once the lock is free", async () => {
    const migrations = [...(await readMigrations()), NEEDS_REFERRALS];
    const holder = new pg.Client({ connectionString: db.url });
    // A host reader that would queue behind the migration's lock request for good without the bound.
    const reader = new pg.Client({ connectionString: db.url, statement_timeout: 10_000 });
    await Promise.all([holder.connect(), reader.connect()]);
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT count(*) FROM referrals");
      const run = applyMigrations(db.url, migrations, WAIT_SECONDS).then(
        () => null,
        (error: unknown) => error,
      );
      const readWaits: number[] = [];
      for (let i = 0; i < 4; i++) {
        await new Promise((resolve) => setTimeout(resolve, 700));
        const startedAt = Date.now();
        await reader.query("SELECT count(*) FROM referrals");
        readWaits.push(Date.now() - startedAt);
      }
      const error = await run;
      expect(error).toBeInstanceOf(MigrationLockTimeout);
      expect((error as Error).message).toBe(new MigrationLockTimeout(WAIT_SECONDS, "tables").message);
      for (const wait of readWaits) expect(wait).toBeLessThan(3_000);

      await holder.query("COMMIT");
      expect(await applyMigrations(db.url, migrations, WAIT_SECONDS)).toEqual([NEEDS_REFERRALS.name]);
    } finally {
      await Promise.all([holder.end(), reader.end()]);
    }
  }, 60_000);
});
