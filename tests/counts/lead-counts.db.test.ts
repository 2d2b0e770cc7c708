import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, post, postAdmitted } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { countDrift } from "../helpers/kept-counts";
import { validLead } from "../helpers/lead";

/**
 * pagination.total comes from lead_referrer_counts, which a trigger keeps in step
 * with every write to referrals, including the host's own SQL. After each kind of
 * write the totals, and the per-block counts that deep offsets seek by, must equal
 * a real count.
 */
let db: TestDatabase;
let sourceA: string;
let sourceB: string;

beforeAll(async () => {
  db = await createTestDatabase();
  for (let i = 0; i < 3; i++) await post(validLead({ leadName: `Lead A${i}`, referrer: "Counts Source A" }));
  for (let i = 0; i < 2; i++) await post(validLead({ leadName: `Lead B${i}`, referrer: "Counts Source B" }));
  const { rows } = await db.sql.query<{ id: string; name: string }>(
    `SELECT id, name FROM customers WHERE name IN ('Counts Source A', 'Counts Source B')`,
  );
  sourceA = rows.find((r) => r.name === "Counts Source A")!.id;
  sourceB = rows.find((r) => r.name === "Counts Source B")!.id;
});
afterAll(() => db.sql.end());

async function realCount(sourceId?: string): Promise<number> {
  const { rows } = await db.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM referrals r JOIN customers c ON c.id = r.referrer_customer_id AND c.kind = 'source'
     WHERE $1::text IS NULL OR r.referrer_customer_id = $1`,
    [sourceId ?? null],
  );
  return rows[0].n;
}

async function expectTotalsExact() {
  for (const filter of [undefined, sourceA, sourceB]) {
    const query = filter ? `?referrer=${encodeURIComponent(filter)}` : "";
    const res = await call("GET", `/api/leads${query}`);
    expect(res.status).toBe(200);
    expect(res.body.pagination.total).toBe(await realCount(filter));
  }
  // Every kept count (per referrer, source leads, each block of ids) with its real number of records.
  expect(await countDrift(db.sql)).toEqual([]);
}

describe("pagination.total stays exact under every kind of write", () => {
  it("after creation through the API", async () => {
    expect(await realCount(sourceA)).toBe(3);
    await expectTotalsExact();
  });

  it("after concurrent creations for one source, counted in several per-connection slots", async () => {
    // 40 at once, more than lead creation admits at once on the default pool: the refused are sent again.
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        postAdmitted(validLead({ leadName: `Lead C${i}`, referrer: "Counts Source A" })),
      ),
    );
    expect(created.map((res) => res.status)).toEqual(Array(40).fill(201));
    expect(await realCount(sourceA)).toBe(43);
    await expectTotalsExact();
    // Split by connection, so concurrent creations for one source do not queue on one row's lock.
    const { rows } = await db.sql.query<{ slots: number }>(
      "SELECT count(*)::int AS slots FROM lead_referrer_counts WHERE customer_id = $1",
      [sourceA],
    );
    expect(rows[0].slots).toBeGreaterThan(1);
    await db.sql.query(
      `DELETE FROM audit_entries WHERE referral_id IN (SELECT id FROM referrals WHERE lead_name LIKE 'Lead C%')`,
    );
    await db.sql.query(`DELETE FROM referrals WHERE lead_name LIKE 'Lead C%'`);
    await expectTotalsExact();
  });

  it("after the host inserts, moves and deletes records with its own SQL", async () => {
    await db.sql.query(
      `INSERT INTO referrals (referrer_customer_id, lead_name, status) SELECT $1, 'host ' || g, 'Contacted' FROM generate_series(1, 5) g`,
      [sourceB],
    );
    await expectTotalsExact();
    await db.sql.query(
      `UPDATE referrals SET referrer_customer_id = $1 WHERE lead_name LIKE 'host %' AND lead_name <= 'host 2'`,
      [sourceA],
    );
    await db.sql.query(`UPDATE referrals SET status = 'Qualified' WHERE referrer_customer_id = $1`, [sourceA]);
    await expectTotalsExact();
    // An id moved into another block of 1,024 ids moves its count with it.
    await db.sql.query(`UPDATE referrals SET id = id + 5000 WHERE lead_name = 'host 5'`);
    await expectTotalsExact();
    await db.sql.query(`DELETE FROM audit_entries`);
    await db.sql.query(`DELETE FROM referrals WHERE lead_name LIKE 'host %'`);
    await expectTotalsExact();
    expect(await realCount()).toBe(5);
  });

  it("leaves person-referred records out of the total", async () => {
    const { rows } = await db.sql.query<{ id: string }>(
      `INSERT INTO customers (id, kind, name) VALUES ('cus_counts_person', 'person', 'Person P') RETURNING id`,
    );
    await post(validLead({ leadName: "Referred by P", referrer: { customerId: rows[0].id } }));
    await expectTotalsExact();
    expect((await call("GET", "/api/leads")).body.pagination.total).toBe(5);
  });

  it("after the host truncates its records", async () => {
    await db.sql.query(`TRUNCATE referrals, audit_entries`);
    await expectTotalsExact();
    expect(await realCount()).toBe(0);
  });
});
