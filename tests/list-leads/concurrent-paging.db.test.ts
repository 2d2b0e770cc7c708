import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { post } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { insertPerson, insertReferrals, insertSource, listLeads, sourcesByName } from "../helpers/read-fixtures";
import { validLead } from "../helpers/lead";

/**
 * Spec "GET /api/leads" rules 5 and 6: data is current, inserts during paging shift
 * offsets, and a caller that pages with offset += limit until hasMore is false and
 * deduplicates by referralId still sees every lead that existed when it started.
 */

let db: TestDatabase;
let facebook: string;
let google: string;
let personId: string;
beforeAll(async () => {
  db = await createTestDatabase();
  const sources = await sourcesByName();
  facebook = sources.get("Facebook Ads")!.id;
  google = sources.get("Google Ads")!.id;
  personId = await insertPerson(db.sql, "Person Introducer");
  for (let round = 0; round < 2; round++) {
    await insertReferrals(db.sql, facebook, 100, "Before");
    await insertReferrals(db.sql, personId, 20, "Person before");
    await insertReferrals(db.sql, google, 50, "Before");
  }
});
afterAll(() => db.sql.end());

/** Ids of the records of these referrers, newest first. */
async function idsOf(referrerIds: string[]): Promise<number[]> {
  const { rows } = await db.sql.query<{ id: number }>(
    `SELECT id FROM referrals WHERE referrer_customer_id = ANY($1) ORDER BY id DESC`,
    [referrerIds],
  );
  return rows.map((r) => r.id);
}

/**
 * A caller following the spec (offset += limit until hasMore is false, deduplicating
 * by referralId) while `insert` adds leads during every one of its requests.
 */
async function readAllWhileInserting(limit: number, referrer: string | undefined, insert: () => Promise<unknown>) {
  const seen = new Set<number>();
  for (let offset = 0; ; offset += limit) {
    const filter = referrer ? `&referrer=${encodeURIComponent(referrer)}` : "";
    const [{ leads, pagination }] = await Promise.all([
      listLeads(`?limit=${limit}&offset=${offset}${filter}`),
      insert(),
    ]);
    const ids = leads.map((l) => l.referralId);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(offset + leads.length).toBeLessThanOrEqual(pagination.total);
    for (const id of ids) seen.add(id);
    if (!pagination.hasMore) return seen;
  }
}

/** One burst of the other loop: a lead for each source and for a person, by SQL and by POST, all at once. */
async function insertBurst(): Promise<void> {
  await Promise.all([
    insertReferrals(db.sql, facebook, 1, "During"),
    insertReferrals(db.sql, google, 1, "During"),
    insertReferrals(db.sql, personId, 2, "Person during"),
    post(validLead({ leadName: "Posted During" })).then((res) => expect(res.status, res.text).toBe(201)),
  ]);
}

describe("paging while leads are inserted", () => {
  it.each([
    [7, undefined],
    [25, undefined],
    [100, undefined],
    [7, "Facebook Ads"],
    [25, "google ads"],
  ])(
    "loses no lead that existed before the reader started (limit %i, referrer %s)",
    { timeout: 120_000 },
    async (limit, referrer) => {
      const referrers =
        referrer === undefined ? [facebook, google] : referrer === "Facebook Ads" ? [facebook] : [google];
      const before = await idsOf(referrers);
      const seen = await readAllWhileInserting(limit, referrer, insertBurst);
      expect(before.filter((id) => !seen.has(id))).toEqual([]);
      const persons = new Set(await idsOf([personId]));
      expect([...seen].filter((id) => persons.has(id))).toEqual([]);
      const after = new Set(await idsOf(referrers));
      expect([...seen].filter((id) => !after.has(id))).toEqual([]);
    },
  );

  it("several readers at once, while another loop inserts, each lose nothing", { timeout: 120_000 }, async () => {
    let running = true;
    const inserter = (async () => {
      let bursts = 0;
      while (running) {
        await insertBurst();
        bursts++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return bursts;
    })();
    try {
      const before = await idsOf([facebook, google]);
      const googleBefore = await idsOf([google]);
      const noop = async () => {};
      const [a, b, c] = await Promise.all([
        readAllWhileInserting(50, undefined, noop),
        readAllWhileInserting(100, undefined, noop),
        readAllWhileInserting(40, "Google Ads", noop),
      ]);
      expect(before.filter((id) => !a.has(id))).toEqual([]);
      expect(before.filter((id) => !b.has(id))).toEqual([]);
      expect(googleBefore.filter((id) => !c.has(id))).toEqual([]);
    } finally {
      running = false;
      expect(await inserter).toBeGreaterThan(0);
    }
  });

  /**
   * The last page is where a total counted apart from the page goes wrong: a lead
   * inserted between the two reads makes the page full while the older total says
   * hasMore is false, and the caller stops before the oldest leads. The race is
   * narrow, so it is tried many times, each with a one-page source and an insert
   * fired with the request.
   */
  it(
    "ends only when the oldest lead has been seen: page and total agree even mid-insert",
    { timeout: 120_000 },
    async () => {
      for (let attempt = 0; attempt < 200; attempt++) {
        const source = await insertSource(db.sql, `Race ${attempt}`);
        const before = await insertReferrals(db.sql, source, 18, "Race");
        const delay = attempt % 5;
        const [page] = await Promise.all([
          listLeads(`?limit=20&referrer=${source}`),
          new Promise((resolve) => setTimeout(resolve, delay)).then(() =>
            insertReferrals(db.sql, source, 5, "Race insert"),
          ),
        ]);
        const seen = new Set(page.leads.map((l) => l.referralId));
        expect(page.leads.length).toBeLessThanOrEqual(page.pagination.total);
        if (!page.pagination.hasMore)
          expect(
            before.filter((id) => !seen.has(id)),
            `attempt ${attempt}`,
          ).toEqual([]);
      }
    },
  );
});
