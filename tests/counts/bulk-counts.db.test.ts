import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { countDrift, sourceListVersion } from "../helpers/kept-counts";

/**
 * The kept counts follow the host's set-based writes: on referrals one trigger per statement and event, reading the
 * statement's transition tables, so a statement of N rows costs time linear in N (the ratio to the same statement
 * without the triggers is measured by `npm run bench`, hostBulk*OverBare100k). After bulk inserts, updates of referrers
 * and ids, deletes and concurrent writers, every kept count equals count(*).
 */
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  await db.sql.query(
    `INSERT INTO customers (id, kind, name, source_type) SELECT 'src_bulk_' || g, 'source', 'Bulk Source ' || g, 'ads'
     FROM generate_series(1, 20) g;
     INSERT INTO customers (id, kind, name) SELECT 'per_bulk_' || g, 'person', 'Bulk Person ' || g FROM generate_series(1, 5) g`,
  );
});
afterAll(() => db.sql.end());

/** One INSERT ... SELECT of n referrals, a tenth referred by persons, the rest spread over the sources. */
const insertBulk = (n: number, tag: string) =>
  `INSERT INTO referrals (referrer_customer_id, lead_name, status)
   SELECT CASE WHEN g % 10 = 0 THEN 'per_bulk_' || (g % 5 + 1) ELSE 'src_bulk_' || (g % 20 + 1) END, '${tag} ' || g, 'Pending'
   FROM generate_series(1, ${n}) g`;

/** Each count row's version: unchanged when no statement wrote it. */
async function countRowVersions(): Promise<string[]> {
  const { rows } = await db.sql.query<{ v: string }>(
    `SELECT 'r' || ctid || xmin AS v FROM lead_referrer_counts UNION ALL SELECT 's' || ctid || xmin FROM lead_source_lead_counts
     UNION ALL SELECT 'b' || ctid || xmin FROM lead_source_lead_blocks
     UNION ALL SELECT 'g' || ctid || xmin FROM lead_source_lead_groups
     UNION ALL SELECT 'pb' || ctid || xmin FROM lead_per_source_lead_blocks
     UNION ALL SELECT 'pg' || ctid || xmin FROM lead_per_source_lead_groups ORDER BY 1`,
  );
  return rows.map((r) => r.v);
}

describe("the module's triggers", () => {
  it("on referrals fire once per statement, one per event, with transition tables; none names a column", async () => {
    const { rows } = await db.sql.query<{
      on: string;
      name: string;
      row: boolean;
      transition: boolean;
      named: boolean;
    }>(
      `SELECT tgrelid::regclass::text AS on, tgname AS name, (tgtype & 1) = 1 AS row,
              (tgoldtable IS NOT NULL OR tgnewtable IS NOT NULL) AS transition, tgattr::text <> '' OR tgqual IS NOT NULL AS named
       FROM pg_trigger WHERE NOT tgisinternal AND tgrelid IN ('referrals'::regclass, 'customers'::regclass) ORDER BY 1, 2`,
    );
    expect(rows).toEqual([
      // Per row on customers: a lead's person row returns before any statement runs; sources bump once per transaction.
      { on: "customers", name: "lead_intake_count_source_changes", row: true, transition: false, named: false },
      { on: "customers", name: "lead_intake_count_source_truncates", row: false, transition: false, named: false },
      { on: "referrals", name: "lead_intake_count_referral_deletes", row: false, transition: true, named: false },
      { on: "referrals", name: "lead_intake_count_referral_inserts", row: false, transition: true, named: false },
      { on: "referrals", name: "lead_intake_count_referral_updates", row: false, transition: true, named: false },
      { on: "referrals", name: "lead_intake_count_referrals_truncate", row: false, transition: false, named: false },
    ]);
  });
});

describe("every kept count equals count(*)", () => {
  it("after one INSERT ... SELECT of thousands of referrals over several blocks of ids", async () => {
    await db.sql.query(insertBulk(5000, "Bulk"));
    expect(await countDrift(db.sql)).toEqual([]);
  });

  it("after bulk updates that move referrers between sources and persons and move ids between blocks", async () => {
    await db.sql.query(`UPDATE referrals SET referrer_customer_id = 'src_bulk_' || (id % 3 + 1) WHERE id % 4 = 0`);
    expect(await countDrift(db.sql)).toEqual([]);
    await db.sql.query(`UPDATE referrals SET referrer_customer_id = 'per_bulk_1', id = id + 20000 WHERE id % 7 = 0`);
    expect(await countDrift(db.sql)).toEqual([]);
    await db.sql.query(`UPDATE referrals SET id = id + 50000 WHERE id % 5 = 1`);
    expect(await countDrift(db.sql)).toEqual([]);
  });

  it("after an update that changes neither id nor referrer, without writing any count row", async () => {
    const before = await countRowVersions();
    await db.sql.query(`UPDATE referrals SET status = 'Contacted', remark = 'bulk'`);
    expect(await countRowVersions()).toEqual(before);
    expect(await countDrift(db.sql)).toEqual([]);
  });

  it("after an insert that updates on conflict", async () => {
    await db.sql.query(
      `INSERT INTO referrals (id, referrer_customer_id, lead_name, status)
       SELECT id, 'src_bulk_9', lead_name, status FROM referrals WHERE id % 11 = 0
       UNION ALL SELECT 900000 + g, 'src_bulk_8', 'Upserted ' || g, 'Pending' FROM generate_series(1, 30) g
       ON CONFLICT (id) DO UPDATE SET referrer_customer_id = EXCLUDED.referrer_customer_id`,
    );
    expect(await countDrift(db.sql)).toEqual([]);
  });

  it("after a bulk delete", async () => {
    await db.sql.query(`DELETE FROM referrals WHERE id % 3 <> 0`);
    expect(await countDrift(db.sql)).toEqual([]);
  });

  it("after concurrent writers insert, move and delete in bulk", async () => {
    const writers = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        return client;
      }),
    );
    try {
      await Promise.all(
        writers.map(async (client, i) => {
          for (let round = 0; round < 3; round++) {
            await client.query("BEGIN");
            await client.query(insertBulk(400, `Writer ${i}`));
            await client.query(
              `UPDATE referrals SET referrer_customer_id = 'src_bulk_' || (${i} + ${round} + 1)
               WHERE lead_name LIKE 'Writer ${i} %' AND id % 3 = ${round}`,
            );
            await client.query(`DELETE FROM referrals WHERE lead_name LIKE 'Writer ${i} %' AND id % 5 = ${round}`);
            await client.query("COMMIT");
          }
        }),
      );
    } finally {
      await Promise.all(writers.map((client) => client.end()));
    }
    expect(await countDrift(db.sql)).toEqual([]);
  });

  it("after TRUNCATE", async () => {
    await db.sql.query("TRUNCATE referrals, audit_entries");
    expect(await countDrift(db.sql)).toEqual([]);
    const { rows } = await db.sql.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM lead_referrer_counts) + (SELECT count(*) FROM lead_source_lead_blocks)
              + (SELECT count(*) FROM lead_source_lead_groups) + (SELECT count(*) FROM lead_per_source_lead_blocks)
              + (SELECT count(*) FROM lead_per_source_lead_groups) AS n`,
    );
    expect(Number(rows[0].n)).toBe(0);
  });
});

describe("the sources list version", () => {
  it("adds one per transaction that changes the list, however many rows or statements", async () => {
    const start = await sourceListVersion(db.sql);
    await db.sql.query(
      `INSERT INTO customers (id, kind, name, source_type) SELECT 'src_many_' || g, 'source', 'Many ' || g, 'other'
       FROM generate_series(1, 500) g`,
    );
    expect(await sourceListVersion(db.sql)).toBe(start + 1);
    const client = await db.sql.connect();
    try {
      await client.query(`BEGIN;
        UPDATE customers SET name = name || '!' WHERE id LIKE 'src_many_%';
        DELETE FROM customers WHERE id = 'src_many_1';
        UPDATE customers SET source_type = 'ads' WHERE id = 'src_many_2';
        COMMIT`);
      expect(await sourceListVersion(db.sql)).toBe(start + 2);
      // A change undone with its savepoint takes its count back; the next change of the transaction counts.
      await client.query(
        `BEGIN; SAVEPOINT s; UPDATE customers SET name = 'Undone' WHERE id = 'src_many_3'; ROLLBACK TO s`,
      );
      await client.query(`UPDATE customers SET name = 'Kept' WHERE id = 'src_many_4'; COMMIT`);
      expect(await sourceListVersion(db.sql)).toBe(start + 3);
    } finally {
      client.release();
    }
  });

  it("stays put for writes that leave the list as it was", async () => {
    const start = await sourceListVersion(db.sql);
    await db.sql.query(`UPDATE customers SET city = 'Ipoh'`);
    await db.sql.query(`UPDATE customers SET name = name || '?' WHERE kind = 'person'`);
    await db.sql.query(`INSERT INTO customers (id, kind, name) VALUES ('per_version', 'person', 'Not A Source')`);
    await db.sql.query(`DELETE FROM customers WHERE id = 'per_version'`);
    expect(await sourceListVersion(db.sql)).toBe(start);
    await db.sql.query(
      `UPDATE customers SET name = CASE id WHEN 'src_many_5' THEN 'Many 6!' ELSE 'Many 5!' END WHERE id IN ('src_many_5', 'src_many_6')`,
    );
    expect(await sourceListVersion(db.sql)).toBe(start + 1);
  });
});
