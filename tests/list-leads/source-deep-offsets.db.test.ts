import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { countDrift } from "../helpers/kept-counts";
import { insertPerson, insertSource, listLeads } from "../helpers/read-fixtures";
import { rowsRead } from "../helpers/rows-read";
import { leadPageSql } from "@/lib/db/store/leads";

/**
 * One source's deep offsets are sought through that source's counts per block of 1,024 ids and per group of 1,024
 * blocks, as the whole list's are. Pages are compared with a plain OFFSET over that source's records for many offsets,
 * with records of several sources interleaved across several groups of ids, written by concurrent connections (so in
 * several slots), then after the host deletes, moves and renumbers records.
 */

const GROUP_IDS = 1024 * 1024;

let db: TestDatabase;
let sources: string[];
let person: string;

/** A seeded generator, so a failing offset is found again on the next run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * `count` referrals in one statement, the first source taking about half of them and the other referrers sharing
 * the rest, as a CRM's paid ads do.
 */
async function insertMixed(count: number, label: string, sql: pg.Pool | pg.PoolClient = db.sql) {
  await sql.query(
    `INSERT INTO referrals (referrer_customer_id, lead_name, status)
     SELECT CASE WHEN g % 2 = 0 THEN $1 ELSE ($2::text[])[1 + (g % 8) / 2] END, $3 || ' ' || g, 'Pending'
     FROM generate_series(1, $4::int) g`,
    [sources[0], [sources[1], sources[2], person, sources[1]], label, count],
  );
}

/** Moves the id sequence past a gap to 600 ids before the next group, so the next insert spans two groups. */
const jumpToNextGroup = () =>
  db.sql.query(`SELECT setval('referrals_id_seq', (nextval('referrals_id_seq') / $1 + 1) * $1 - 600)`, [GROUP_IDS]);

beforeAll(async () => {
  db = await createTestDatabase();
  sources = [
    await insertSource(db.sql, "Deep Paid Ads"),
    await insertSource(db.sql, "Deep Other Ads"),
    await insertSource(db.sql, "Deep Walk-ins"),
  ];
  person = await insertPerson(db.sql, "Deep Referring Person");
  await insertMixed(3000, "first");
  await jumpToNextGroup();
  await insertMixed(2500, "second");
  await jumpToNextGroup();
  await insertMixed(1800, "third");
}, 120_000);
afterAll(() => db.sql.end());

/** One source's ids, newest first, by a plain OFFSET; and how many it has. */
async function offsetIds(sourceId: string, offset: number, limit: number): Promise<{ ids: number[]; total: number }> {
  const { rows } = await db.sql.query<{ id: number; total: number }>(
    `SELECT id, count(*) OVER ()::int AS total FROM referrals WHERE referrer_customer_id = $1 ORDER BY id DESC`,
    [sourceId],
  );
  return { ids: rows.slice(offset, offset + limit).map((r) => r.id), total: rows[0]?.total ?? 0 };
}

/** Offsets at both ends, on both sides of 1,024 and of each group's first record, and 15 more at random. */
async function offsetsOf(sourceId: string, seed: number): Promise<number[]> {
  const { rows } = await db.sql.query<{ position: number }>(
    `SELECT position::int FROM (
       SELECT id, row_number() OVER (ORDER BY id DESC) - 1 AS position,
              id / $2 <> lag(id / $2) OVER (ORDER BY id DESC) AS first_of_group
       FROM referrals WHERE referrer_customer_id = $1) r
     WHERE first_of_group`,
    [sourceId, GROUP_IDS],
  );
  const { total } = await offsetIds(sourceId, 0, 0);
  const next = random(seed);
  const edges = [1, 99, 1023, 1024, 1025, total - 100, total - 1];
  for (const { position } of rows) edges.push(position - 1, position, position + 1);
  for (let i = 0; i < 15; i++) edges.push(1 + Math.floor(next() * (total - 1)));
  return edges.filter((o) => o > 0 && o < total);
}

async function expectSoughtAsOffset(sourceId: string, seed: number) {
  for (const offset of await offsetsOf(sourceId, seed)) {
    for (const limit of [1, 100]) {
      const { leads, pagination } = await listLeads(`?limit=${limit}&offset=${offset}&referrer=${sourceId}`);
      const expected = await offsetIds(sourceId, offset, limit);
      expect({ sourceId, offset, limit, ids: leads.map((l: { referralId: number }) => l.referralId) }).toEqual({
        sourceId,
        offset,
        limit,
        ids: expected.ids,
      });
      expect(pagination.total).toBe(expected.total);
    }
  }
}

describe("one source's deep offsets of GET /api/leads", () => {
  it("span several groups of ids, each source with records in each", async () => {
    const { rows } = await db.sql.query<{ source: string; groups: number }>(
      `SELECT referrer_customer_id AS source, count(DISTINCT id / $1)::int AS groups FROM referrals GROUP BY 1`,
      [GROUP_IDS],
    );
    expect(rows.map((r) => r.groups)).toEqual([3, 3, 3, 3]);
  });

  it("answer every offset with exactly the records a plain OFFSET finds, for each source", async () => {
    for (const [i, sourceId] of sources.entries()) await expectSoughtAsOffset(sourceId, i + 1);
  });

  it("read one block's records of the source and one page for the deepest offset, not every record before it", async () => {
    const { total } = await offsetIds(sources[0], 0, 0);
    expect(total).toBeGreaterThan(3000);
    // At most the source's records in the block that holds the offset, where a walk reads every one before it.
    const read = await rowsRead(db.sql, leadPageSql({ sourceId: sources[0] }, 100, total - 100).page);
    expect(read).toBeLessThanOrEqual(1024 + 100);
  });

  it("stay exact after concurrent writers, and after the host deletes, moves and renumbers records", async () => {
    const writers = await Promise.all([1, 2, 3, 4].map(() => db.sql.connect()));
    try {
      await Promise.all(writers.map((w, i) => insertMixed(400 + 100 * i, `concurrent ${i}`, w)));
    } finally {
      for (const w of writers) w.release();
    }
    await db.sql.query(`DELETE FROM referrals WHERE lead_name LIKE 'second 1%'`);
    await db.sql.query(`UPDATE referrals SET referrer_customer_id = $1 WHERE lead_name LIKE 'first 2%'`, [sources[2]]);
    await db.sql.query(`UPDATE referrals SET referrer_customer_id = $1 WHERE lead_name LIKE 'third 3%'`, [person]);
    await db.sql.query(`UPDATE referrals SET id = id + $1 WHERE lead_name LIKE 'first 4%'`, [3 * GROUP_IDS]);
    expect(await countDrift(db.sql)).toEqual([]);
    for (const [i, sourceId] of sources.entries()) await expectSoughtAsOffset(sourceId, 10 + i);
  });
});
