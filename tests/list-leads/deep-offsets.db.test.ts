import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { insertPerson, insertReferrals, insertSource, listLeads, sourcesByName } from "../helpers/read-fixtures";
import { rowsRead } from "../helpers/rows-read";
import { leadPageSql } from "@/lib/db/store/leads";

/**
 * GET /api/leads seeks an offset through per-block counts of source records (blocks of 1,024 ids) instead of
 * walking every record before it. Every page must still be exactly what that walk finds, across many blocks of
 * source and person records, id gaps (a rolled-back insert, a jumped sequence) and the host's deletes, moves and
 * renumbering; an offset at or past the total reads no record at all.
 */

let db: TestDatabase;
let facebook: string;
let other: string;
let person: string;

beforeAll(async () => {
  db = await createTestDatabase();
  facebook = (await sourcesByName()).get("Facebook Ads")!.id;
  other = await insertSource(db.sql, "Deep Offset Source");
  person = await insertPerson(db.sql, "Deep Offset Person");
  await insertReferrals(db.sql, facebook, 1500, "A");
  await insertReferrals(db.sql, person, 300, "P");
  await insertReferrals(db.sql, other, 900, "B");
  await db.sql.query(`SELECT setval('referrals_id_seq', nextval('referrals_id_seq') + 3000)`);
  await insertReferrals(db.sql, facebook, 700, "A");
  const client = await db.sql.connect();
  try {
    await client.query("BEGIN");
    await client.query(
      `INSERT INTO referrals (referrer_customer_id, lead_name, status) SELECT $1, 'rolled back ' || g, 'Pending' FROM generate_series(1, 500) g`,
      [facebook],
    );
    await client.query("ROLLBACK");
  } finally {
    client.release();
  }
  await insertReferrals(db.sql, person, 200, "P");
  await insertReferrals(db.sql, other, 1200, "B");
}, 120_000);
afterAll(() => db.sql.end());

/** The ids a walk finds: source records, newest first, of one source or all. */
async function walkedIds(offset: number, limit: number, sourceId?: string): Promise<{ ids: number[]; total: number }> {
  const { rows } = await db.sql.query<{ id: number }>(
    `SELECT r.id FROM referrals r JOIN customers c ON c.id = r.referrer_customer_id AND c.kind = 'source'
     WHERE $1::text IS NULL OR r.referrer_customer_id = $1 ORDER BY r.id DESC`,
    [sourceId ?? null],
  );
  return { ids: rows.slice(offset, offset + limit).map((r) => r.id), total: rows.length };
}

async function expectPageAsWalked(offset: number, limit: number, sourceId?: string) {
  const filter = sourceId === undefined ? "" : `&referrer=${sourceId}`;
  const { leads, pagination } = await listLeads(`?limit=${limit}&offset=${offset}${filter}`);
  const walked = await walkedIds(offset, limit, sourceId);
  expect({
    offset,
    limit,
    sourceId,
    ids: leads.map((l: { referralId: number }) => l.referralId),
    total: pagination.total,
  }).toEqual({
    offset,
    limit,
    sourceId,
    ids: walked.ids,
    total: walked.total,
  });
  expect(pagination.hasMore).toBe(offset + walked.ids.length < walked.total);
}

/** Offsets on both sides of block edges, inside runs of person records, and near the end. */
function offsetsFor(total: number): number[] {
  return [1, 99, 100, 1023, 1024, 1025, 1499, 1500, 2047, 2048, 2399, 2500, 3333, total - 101, total - 100, total - 1];
}

describe("deep offsets of GET /api/leads", () => {
  it("spans many blocks of ids, with person records and id gaps among them", async () => {
    const { rows } = await db.sql.query<{ blocks: number }>(
      `SELECT count(DISTINCT id / 1024)::int AS blocks FROM referrals`,
    );
    expect(rows[0].blocks).toBeGreaterThanOrEqual(6);
    expect((await walkedIds(0, 1)).total).toBe(4300);
  });

  it("answers every offset and limit with exactly the records a walk finds, for all sources and for one", async () => {
    for (const sourceId of [undefined, facebook, other]) {
      const { total } = await walkedIds(0, 1, sourceId);
      for (const offset of offsetsFor(total).filter((o) => o > 0 && o < total)) {
        for (const limit of [1, 100, 500]) await expectPageAsWalked(offset, limit, sourceId);
      }
    }
  });

  it("visits every source record exactly once, in order, paging 500 at a time", async () => {
    const seen: number[] = [];
    for (let offset = 0; ; offset += 500) {
      const { leads, pagination } = await listLeads(`?limit=500&offset=${offset}`);
      seen.push(...leads.map((l: { referralId: number }) => l.referralId));
      if (!pagination.hasMore) break;
    }
    expect(seen).toEqual((await walkedIds(0, 10_000)).ids);
  });

  it("answers an offset at or past the total with the empty page and the same total, reading no record", async () => {
    for (const sourceId of [undefined, facebook]) {
      const { total } = await walkedIds(0, 1, sourceId);
      for (const offset of [total, total + 1, 2147483647]) {
        const filter = sourceId === undefined ? "" : `&referrer=${sourceId}`;
        const { leads, pagination } = await listLeads(`?limit=100&offset=${offset}${filter}`);
        expect({ leads, pagination }).toEqual({ leads: [], pagination: { total, limit: 100, offset, hasMore: false } });
        expect(await rowsRead(db.sql, leadPageSql(sourceId ? { sourceId } : "all sources", 100, offset).page)).toBe(0);
      }
    }
  });

  it("reads at most one block of ids and one page of records for the deepest offset, not every record before it", async () => {
    const { total } = await walkedIds(0, 1);
    // The block holding the offset (up to 1,024 ids) and the page with the person records among it (300 at most here),
    // where a walk reads all 4,300 source records before the offset and the 500 person records among them.
    expect(await rowsRead(db.sql, leadPageSql("all sources", 100, total - 100).page)).toBeLessThanOrEqual(
      1024 + 100 + 300,
    );
  });

  it("stays exact after the host deletes, moves and renumbers records with its own SQL", async () => {
    await db.sql.query(`DELETE FROM referrals WHERE lead_name BETWEEN 'A 1000' AND 'A 1099'`);
    await db.sql.query(`UPDATE referrals SET referrer_customer_id = $1 WHERE lead_name LIKE 'B 2%'`, [person]);
    await db.sql.query(`UPDATE referrals SET referrer_customer_id = $1 WHERE lead_name LIKE 'P 1%'`, [other]);
    await db.sql.query(`UPDATE referrals SET id = id + 20000 WHERE lead_name LIKE 'A 5%'`);
    for (const sourceId of [undefined, other]) {
      const { total } = await walkedIds(0, 1, sourceId);
      for (const offset of offsetsFor(total).filter((o) => o > 0 && o < total))
        await expectPageAsWalked(offset, 100, sourceId);
    }
  });
});
