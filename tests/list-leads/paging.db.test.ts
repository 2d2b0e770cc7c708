import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { allPages, keysOf, listLeads } from "../helpers/read-fixtures";
import { db, ids, personLeadIds, allSourceIds, desc, arrangeListedLeads } from "../helpers/listed-leads";

arrangeListedLeads();

describe("the arranged data", () => {
  it("has 185 source leads and 26 person-referral leads", () => {
    expect(allSourceIds).toHaveLength(185);
    expect(personLeadIds).toHaveLength(26);
    expect(ids["Facebook Ads"]).toHaveLength(121);
    expect(ids["Google Ads"]).toHaveLength(61);
  });
});

describe("GET /api/leads without parameters", () => {
  it("answers the newest 100 source leads with limit 100, offset 0 and the total of all matches", async () => {
    const res = await call("GET", "/api/leads");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(keysOf(res.body)).toEqual(["leads", "pagination"]);
    expect(res.body.pagination).toEqual({ total: 185, limit: 100, offset: 0, hasMore: true });
    expect(keysOf(res.body.pagination)).toEqual(["hasMore", "limit", "offset", "total"]);
    expect(res.body.leads.map((l: any) => l.referralId)).toEqual(allSourceIds.slice(0, 100));
  });

  it("leaves out person-referral leads everywhere, while counting and paging", async () => {
    const { ids: listed } = await allPages(500);
    expect(listed.filter((id) => personLeadIds.includes(id))).toEqual([]);
    const { rows } = await db.sql.query(`SELECT count(*)::int AS n FROM referrals`);
    expect(rows[0].n).toBe(185 + 26);
  });
});

describe("order and paging", () => {
  it("orders by descending referralId", async () => {
    const { leads } = await listLeads("?limit=500");
    const listed = leads.map((l) => l.referralId);
    expect(listed).toEqual(desc(listed));
    expect(listed).toEqual(allSourceIds);
  });

  it.each([1, 7, 37, 50, 100, 184, 185, 186, 500])(
    "visits every source lead exactly once, in order, following offset += limit (limit %i)",
    async (limit) => {
      const { pages, ids: listed } = await allPages(limit);
      expect(listed).toEqual(allSourceIds);
      expect(pages).toHaveLength(Math.max(1, Math.ceil(185 / limit)));
      pages.forEach((page, i) => {
        expect(page.pagination).toEqual({ total: 185, limit, offset: i * limit, hasMore: i < pages.length - 1 });
        expect(page.leads.length).toBe(Math.min(limit, 185 - i * limit));
      });
    },
  );

  it.each([
    // [limit, offset, page length, hasMore]
    [1, 0, 1, true],
    [1, 183, 1, true],
    [1, 184, 1, false],
    [184, 0, 184, true],
    [185, 0, 185, false],
    [186, 0, 185, false],
    [100, 84, 100, true],
    [100, 85, 100, false],
    [100, 86, 99, false],
    [100, 100, 85, false],
    [500, 0, 185, false],
    [2, 183, 2, false],
    [3, 183, 2, false],
  ])("limit %i offset %i: %i leads, hasMore %s", async (limit, offset, length, hasMore) => {
    const { leads, pagination } = await listLeads(`?limit=${limit}&offset=${offset}`);
    expect(pagination).toEqual({ total: 185, limit, offset, hasMore });
    expect(leads.map((l) => l.referralId)).toEqual(allSourceIds.slice(offset, offset + limit));
    expect(leads).toHaveLength(length);
  });

  it.each([185, 186, 1000, 2147483647])(
    "offset %i past the end: empty page, same total, hasMore false",
    async (offset) => {
      expect(await listLeads(`?offset=${offset}`)).toEqual({
        leads: [],
        pagination: { total: 185, limit: 100, offset, hasMore: false },
      });
    },
  );

  it("accepts the parameters in any order and percent-encoded names", async () => {
    const expected = await listLeads("?limit=5&offset=3");
    expect(await listLeads("?offset=3&limit=5")).toEqual(expected);
    expect(await listLeads("?%6Cimit=5&offset=3")).toEqual(expected);
  });
});
