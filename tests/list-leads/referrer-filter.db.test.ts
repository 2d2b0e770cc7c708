import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { rowCounts } from "../helpers/db";
import { allPages, listLeads, sourcesByName } from "../helpers/read-fixtures";
import { db, ids, sources, personId, desc, arrangeListedLeads } from "../helpers/listed-leads";

arrangeListedLeads();

describe("the referrer filter", () => {
  const fbQueries = () => [
    "Facebook Ads",
    "facebook ads",
    "FACEBOOK   ADS",
    "  Facebook\tAds  ",
    sources.get("Facebook Ads")!.id,
    ` ${sources.get("Facebook Ads")!.id} `,
  ];

  it("selects one source by exact name, case and repeated spaces ignored, or by its exact id", async () => {
    for (const referrer of fbQueries()) {
      const { leads, pagination } = await listLeads(`?referrer=${encodeURIComponent(referrer)}&limit=500`);
      expect(pagination, referrer).toEqual({ total: 121, limit: 500, offset: 0, hasMore: false });
      expect(leads.map((l) => l.referralId)).toEqual(desc(ids["Facebook Ads"]));
      expect(leads.every((l) => l.referrer.customerId === sources.get("Facebook Ads")!.id)).toBe(true);
    }
  });

  it("takes a form-encoded name (+ for a space)", async () => {
    const { pagination } = await listLeads("?referrer=Facebook+Ads");
    expect(pagination.total).toBe(121);
  });

  it("pages through one source like the whole list", async () => {
    const { pages, ids: listed } = await allPages(10, "facebook ads");
    expect(listed).toEqual(desc(ids["Facebook Ads"]));
    expect(pages).toHaveLength(13);
    expect(pages.at(-1).pagination).toEqual({ total: 121, limit: 10, offset: 120, hasMore: false });
    expect((await allPages(7, sources.get("Google Ads")!.id)).ids).toEqual(desc(ids["Google Ads"]));
  });

  it.each([
    ["Facebook Ads Premium", "Facebook Ads Premium"],
    ["roadshow kl", "Roadshow KL"],
    ["50% Off Promo", "50% Off Promo"],
  ])("selects %j as the one source %j, not a name it contains or starts with", async (referrer, name) => {
    const { leads, pagination } = await listLeads(`?referrer=${encodeURIComponent(referrer)}`);
    expect(pagination.total).toBe(1);
    expect(leads.map((l) => l.referralId)).toEqual(ids[name]);
    expect(leads[0].referrer).toEqual({ customerId: sources.get(name)!.id, name, type: "source" });
  });

  const noSuchSource = () => [
    "Face",
    "Face%",
    "Facebook%",
    "%%",
    "_acebook Ads",
    "Facebook_Ads",
    "Facebook*",
    "Facebook Ads,Google Ads",
    "Facebook Ads, Google Ads",
    "Facebook Ads;Google Ads",
    "Facebook Ads|Google Ads",
    '["Facebook Ads"]',
    '{"name":"Facebook Ads"}',
    "50%",
    "Ads",
    "Roadshow",
    "book Ads",
    "src_",
    sources.get("Facebook Ads")!.id.slice(0, 10),
    sources.get("Facebook Ads")!.id.toUpperCase(),
    `${sources.get("Facebook Ads")!.id}x`,
    personId,
    "Tan Ah Kow",
    "Person Lead",
    "Facebook\u0000Ads",
    "x".repeat(120),
  ];

  it("answers 200 with no leads and total 0 for anything that is not exactly one source: no substring, wildcard or list", async () => {
    const counts = await rowCounts(db.sql);
    for (const referrer of noSuchSource()) {
      const res = await call("GET", `/api/leads?referrer=${encodeURIComponent(referrer)}`);
      expect(res.status, `${JSON.stringify(referrer)}: ${res.text}`).toBe(200);
      expect(res.body, referrer).toEqual({
        leads: [],
        pagination: { total: 0, limit: 100, offset: 0, hasMore: false },
      });
    }
    expect(await rowCounts(db.sql)).toEqual(counts);
  });

  it("answers an unknown source with the limit and offset asked for, creating no source", async () => {
    const before = await sourcesByName();
    const counts = await rowCounts(db.sql);
    expect(await listLeads("?referrer=Brand%20New%20Expo&limit=5&offset=10")).toEqual({
      leads: [],
      pagination: { total: 0, limit: 5, offset: 10, hasMore: false },
    });
    expect(await rowCounts(db.sql)).toEqual(counts);
    expect(await sourcesByName()).toEqual(before);
  });

  it("answers a known source without leads with an empty page", async () => {
    expect(sources.get("TikTok Ads")).toBeDefined();
    expect(await listLeads("?referrer=TikTok%20Ads")).toEqual({
      leads: [],
      pagination: { total: 0, limit: 100, offset: 0, hasMore: false },
    });
  });

  it("never selects person-referral leads, not even by the person's id", async () => {
    expect((await listLeads(`?referrer=${personId}`)).pagination.total).toBe(0);
  });
});
