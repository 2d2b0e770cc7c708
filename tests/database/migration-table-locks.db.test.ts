import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, MigrationLockTimeout, readMigrations, type Migration } from "@/lib/db/migrate";
import { createTestDatabase, type TestDatabase } from "../helpers/db";

/**
 * A pending migration that needs a lock on a host table a long transaction holds: its request waits at most 150 ms
 * per try, with growing, jittered pauses between tries, so the host's own queries on that table, queued behind it
 * only during a try, are answered nearly all the time; the run gives up after LEADS_MIGRATION_LOCK_TIMEOUT with one
 * sentence, and applies the migration once the transaction ends.
 */
const NEEDS_REFERRALS: Migration = {
  name: "29991231000000_needs_referrals",
  sql: "LOCK TABLE referrals IN ACCESS EXCLUSIVE MODE",
  checksum: "needs-referrals",
  earlierChecksums: [],
};
/** How long the host's transaction holds referrals while the probe runs: the 40 s, shortened. */
const HOLD_MS = 20_000;
/** The probe's cadence: an INSERT and a SELECT on referrals every PROBE_EVERY_MS. */
const PROBE_EVERY_MS = 100;
/** A probe query slower than this waited behind the migration's lock request (an unblocked one takes a few ms). */
const BLOCKED_MS = 50;

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  await db.sql.query("INSERT INTO customers (id, kind, name) VALUES ('probe-source', 'source', 'Probe Source')");
});

afterAll(async () => {
  await db?.sql.end();
});

/** A host transaction holding referrals (ACCESS SHARE, as any open transaction that read it does). */
async function holdReferrals(): Promise<pg.Client> {
  const holder = new pg.Client({ connectionString: db.url });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query("SELECT count(*) FROM referrals");
  return holder;
}

describe("a pending migration behind a host's long transaction", () => {
  it("gives up in one sentence after its bound, and applies once the lock is free", async () => {
    const waitSeconds = 6;
    const migrations = [...(await readMigrations()), NEEDS_REFERRALS];
    const holder = await holdReferrals();
    try {
      const startedAt = Date.now();
      const error = await applyMigrations(db.url, migrations, waitSeconds).then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(MigrationLockTimeout);
      expect((error as Error).message).toBe(new MigrationLockTimeout(waitSeconds, "tables").message);
      // The bound holds, and the tries went on until it (the last one ends by it).
      expect(Date.now() - startedAt).toBeLessThan(waitSeconds * 1000 + 1_000);
      expect(Date.now() - startedAt).toBeGreaterThan(waitSeconds * 1000 - 1_000);
      await holder.query("COMMIT");
      expect(await applyMigrations(db.url, migrations, waitSeconds)).toEqual([NEEDS_REFERRALS.name]);
    } finally {
      await holder.end();
    }
  }, 60_000);

  it(`leaves a host INSERT + SELECT every ${PROBE_EVERY_MS} ms blocked at most 10% of a ${HOLD_MS / 1000} s transaction, no query over 300 ms`, async () => {
    await db.sql.query(`DELETE FROM "_prisma_migrations" WHERE migration_name = $1`, [NEEDS_REFERRALS.name]);
    const migrations = [...(await readMigrations()), NEEDS_REFERRALS];
    const probe = new pg.Client({ connectionString: db.url, statement_timeout: 10_000 });
    await probe.connect();
    const holder = await holdReferrals();
    try {
      const run = applyMigrations(db.url, migrations, 60);
      const durations: number[] = [];
      const timed = async (text: string) => {
        const startedAt = performance.now();
        await probe.query(text);
        durations.push(performance.now() - startedAt);
      };
      const windowStart = performance.now();
      for (let next = windowStart; performance.now() - windowStart < HOLD_MS; next += PROBE_EVERY_MS) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
        await timed(
          "INSERT INTO referrals (referrer_customer_id, lead_name, mobile_number, status) " +
            "VALUES ('probe-source', 'Probe Lead', '012-345 6789', 'new')",
        );
        await timed("SELECT count(*) FROM referrals");
      }
      const window = performance.now() - windowStart;
      await holder.query("COMMIT");
      expect(await run).toEqual([NEEDS_REFERRALS.name]);

      const blocked = durations.filter((ms) => ms > BLOCKED_MS);
      const blockedFraction = blocked.reduce((sum, ms) => sum + ms, 0) / window;
      const measured =
        `${durations.length} queries in ${Math.round(window)} ms, ${blocked.length} blocked, ` +
        `blocked ${(blockedFraction * 100).toFixed(1)}% of the time, longest ${Math.round(Math.max(...durations))} ms`;
      // The migration did try while the probe ran: some probe queries queued behind it.
      expect(blocked.length, measured).toBeGreaterThan(0);
      expect(blockedFraction, measured).toBeLessThanOrEqual(0.1);
      expect(Math.max(...durations), measured).toBeLessThan(300);
    } finally {
      await Promise.all([holder.end(), probe.end()]);
    }
  }, 90_000);
});
