import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, post } from "../helpers/api";
import { expectError } from "../helpers/expect-api";
import { notConfigured } from "../helpers/key";
import { createTestDatabase, rowCounts, type TestDatabase } from "../helpers/db";
import { OPTIONAL_FIELDS } from "../helpers/oracle";
import {
  allPages,
  insertPerson,
  insertReferrals,
  insertUser,
  ISO_MS,
  keysOf,
  LISTED_LEAD_KEYS,
  listLeads,
  sourcesByName,
} from "../helpers/read-fixtures";
import { validLead } from "../helpers/lead";

/**
 * Spec "GET /api/leads": strict query, referrer filter, order, pagination and the
 * ListedLead resource. The data is arranged once (POSTs, then host rows written
 * with SQL, interleaved with person referrals) and every test only reads it.
 */

let db: TestDatabase;
/** Ids of the source leads by source name, ascending. */
const ids: Record<string, number[]> = {};
/** Ids of the person-referral leads, which GET /api/leads leaves out. */
const personLeadIds: number[] = [];
/** Every source lead, newest referralId first: what an unfiltered listing must give. */
let allSourceIds: number[];
let sources: Map<string, { id: string; name: string; type: string }>;
let personId: string;
/** POST responses of the leads created through the API, by a label. */
const created: Record<string, any> = {};

async function create(label: string, body: Record<string, unknown>) {
  const res = await post(validLead(body));
  expect(res.status, res.text).toBe(201);
  created[label] = res.body.lead;
  return res.body.lead;
}

const desc = (list: number[]) => [...list].sort((a, b) => b - a);
const push = (name: string, list: number[]) => (ids[name] ??= []).push(...list);

beforeAll(async () => {
  db = await createTestDatabase();
  await insertUser(db.sql, { name: "Aisyah", platformId: "plat-aisyah", accessLevels: ["sales"] });
  personId = await insertPerson(db.sql, "Tan Ah Kow");

  const full = await create("full", {
    leadName: "  Nur Aisyah  ",
    leadMobileNumber: "+60 12-345 6789",
    referrer: "Facebook Ads",
    assignedAgentId: "plat-aisyah",
    leadState: "Selangor",
    leadCity: "Petaling Jaya",
    leadAddress: "12, Jalan SS2/24",
    relationship: "Friend",
    projectType: "RESIDENTIAL (2%)",
    remark: "Call after 6pm",
  });
  push("Facebook Ads", [full.referralId]);
  push("Facebook Ads Premium", [
    (await create("premium", { leadName: "Premium Lead", referrer: "Facebook Ads Premium" })).referralId,
  ]);
  personLeadIds.push(
    (await create("person", { leadName: "Person Lead", referrer: { customerId: personId } })).referralId,
  );
  push("Google Ads", [(await create("google", { leadName: "Google Lead", referrer: "google ads" })).referralId]);
  push("Roadshow KL", [
    (await create("roadshow", { leadName: "Roadshow Lead", referrer: "Roadshow   KL" })).referralId,
  ]);
  push("50% Off Promo", [(await create("promo", { leadName: "Promo Lead", referrer: "50% Off Promo" })).referralId]);

  sources = await sourcesByName();
  for (let round = 1; round <= 5; round++) {
    push("Facebook Ads", await insertReferrals(db.sql, sources.get("Facebook Ads")!.id, 24, `Fb ${round}`));
    personLeadIds.push(...(await insertReferrals(db.sql, personId, 5, `Person ${round}`)));
    push("Google Ads", await insertReferrals(db.sql, sources.get("Google Ads")!.id, 12, `Google ${round}`));
  }
  allSourceIds = desc(Object.values(ids).flat());
});
afterAll(() => db.sql.end());

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

describe("the listed lead", () => {
  it("carries exactly the documented fields, of the documented types, on every lead", async () => {
    const { leads } = await listLeads("?limit=500");
    expect(leads.length).toBeGreaterThan(0);
    for (const lead of leads) {
      expect(keysOf(lead)).toEqual(LISTED_LEAD_KEYS);
      expect(keysOf(lead.referrer)).toEqual(["customerId", "name", "type"]);
      expect(lead.referrer.type).toBe("source");
      expect(Number.isInteger(lead.referralId)).toBe(true);
      for (const field of ["leadName", "status", ...OPTIONAL_FIELDS.filter((f) => f !== "assignedAgentId")]) {
        expect(typeof lead[field], field).toBe("string");
      }
      for (const field of ["leadCustomerId", "leadMobileNumber", "assignedAgentId"]) {
        expect(lead[field] === null || typeof lead[field] === "string", field).toBe(true);
      }
      expect(lead.createdAt).toMatch(ISO_MS);
    }
  });

  it("lists a lead with every field as it was created, assigned to the agent's platform id", async () => {
    const lead = created.full;
    const { leads } = await listLeads(`?referrer=Facebook%20Ads&offset=${ids["Facebook Ads"].length - 1}`);
    expect(leads).toEqual([
      {
        referralId: lead.referralId,
        leadCustomerId: lead.leadCustomerId,
        leadName: "Nur Aisyah",
        leadMobileNumber: "60123456789",
        referrer: { customerId: sources.get("Facebook Ads")!.id, name: "Facebook Ads", type: "source" },
        assignedAgentId: "plat-aisyah",
        status: "Assigned",
        leadState: "Selangor",
        leadCity: "Petaling Jaya",
        leadAddress: "12, Jalan SS2/24",
        relationship: "Friend",
        projectType: "RESIDENTIAL (2%)",
        remark: "Call after 6pm",
        createdAt: expect.stringMatching(ISO_MS),
      },
    ]);
    const { rows } = await db.sql.query<{ created_at: Date }>(`SELECT created_at FROM referrals WHERE id = $1`, [
      lead.referralId,
    ]);
    expect(leads[0].createdAt).toBe(rows[0].created_at.toISOString());
    expect(Math.abs(Date.parse(leads[0].createdAt) - Date.now())).toBeLessThan(10 * 60_000);
  });

  it("lists a minimal lead unassigned and Pending, with the creation defaults", async () => {
    const { leads } = await listLeads("?referrer=Roadshow%20KL");
    expect(leads).toEqual([
      {
        referralId: created.roadshow.referralId,
        leadCustomerId: created.roadshow.leadCustomerId,
        leadName: "Roadshow Lead",
        leadMobileNumber: "60123456789",
        referrer: { customerId: created.roadshow.referrer.customerId, name: "Roadshow KL", type: "source" },
        assignedAgentId: null,
        status: "Pending",
        leadState: "",
        leadCity: "",
        leadAddress: "",
        relationship: "Other",
        projectType: "OTHERS",
        remark: "",
        createdAt: expect.stringMatching(ISO_MS),
      },
    ]);
  });

  it("agrees with the POST response of every source lead created through the API", async () => {
    const { leads } = await listLeads("?limit=500");
    const listed = new Map(leads.map((l) => [l.referralId, l]));
    for (const label of ["full", "premium", "google", "roadshow", "promo"]) {
      const lead = created[label];
      const { referralId, leadCustomerId, leadName, leadMobileNumber, referrer, assignedAgentId, status } = listed.get(
        lead.referralId,
      );
      expect({ referralId, leadCustomerId, leadName, leadMobileNumber, referrer, assignedAgentId, status }).toEqual(
        lead,
      );
    }
    expect(listed.has(created.person.referralId)).toBe(false);
  });
});

describe("query validation", () => {
  const invalid: [string, string[]][] = [
    ["?foo=1", ["foo"]],
    ["?introducer=Facebook%20Ads", ["introducer"]],
    ["?source=Facebook%20Ads", ["source"]],
    ["?Limit=5", ["Limit"]],
    ["?page=2", ["page"]],
    ["?referrer[]=Facebook%20Ads", ["referrer[]"]],
    ["?referrer[name]=Facebook%20Ads", ["referrer[name]"]],
    ["?toString=1", ["toString"]],
    ["?constructor=1", ["constructor"]],
    ["?__proto__=1", ["__proto__"]],
    ["?limit=5&limit=5", ["limit"]],
    ["?offset=0&offset=10", ["offset"]],
    ["?referrer=Facebook%20Ads&referrer=Google%20Ads", ["referrer"]],
    ["?limit=10&limit=", ["limit"]],
    ["?limit=", ["limit"]],
    ["?limit", ["limit"]],
    ["?offset=", ["offset"]],
    ["?referrer=", ["referrer"]],
    ["?referrer=%20%20%20", ["referrer"]],
    ["?referrer=a", ["referrer"]],
    ["?referrer=%20a%20", ["referrer"]],
    [`?referrer=${"x".repeat(121)}`, ["referrer"]],
    ["?limit=-1", ["limit"]],
    ["?offset=-1", ["offset"]],
    ["?offset=-0", ["offset"]],
    ["?limit=1.5", ["limit"]],
    ["?limit=10.0", ["limit"]],
    ["?offset=2.", ["offset"]],
    ["?offset=.5", ["offset"]],
    ["?limit=%2B5", ["limit"]],
    ["?limit=+5", ["limit"]],
    ["?offset=%2B0", ["offset"]],
    ["?limit=1e2", ["limit"]],
    ["?offset=1E2", ["offset"]],
    ["?limit=0x10", ["limit"]],
    ["?offset=0b1", ["offset"]],
    ["?limit=%205", ["limit"]],
    ["?limit=5%20", ["limit"]],
    ["?limit=5%200", ["limit"]],
    ["?limit=five", ["limit"]],
    ["?limit=Infinity", ["limit"]],
    ["?limit=NaN", ["limit"]],
    ["?limit=%EF%BC%95", ["limit"]],
    ["?limit=5,6", ["limit"]],
    ["?limit=0", ["limit"]],
    ["?limit=00", ["limit"]],
    ["?limit=501", ["limit"]],
    ["?limit=99999999999999999999999", ["limit"]],
    ["?offset=2147483648", ["offset"]],
    ["?offset=99999999999999999999999", ["offset"]],
    ["?limit=0&offset=-1&referrer=a", ["limit", "offset", "referrer"]],
    ["?limit=0&foo=1", ["foo", "limit"]],
  ];

  it.each(invalid)("%s: 400 INVALID_INPUT with issues naming %j", async (query, paths) => {
    const counts = await rowCounts(db.sql);
    const res = await call("GET", `/api/leads${query}`);
    expect(res.status, res.text).toBe(400);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(keysOf(res.body)).toEqual(["code", "error", "issues", "requestId"]);
    expect(res.body.code).toBe("INVALID_INPUT");
    expect(typeof res.body.error).toBe("string");
    expect(res.body.issues).not.toHaveLength(0);
    for (const issue of res.body.issues) {
      expect(keysOf(issue)).toEqual(["message", "path"]);
      expect(typeof issue.message).toBe("string");
      expect(issue.message).not.toBe("");
    }
    expect([...new Set(res.body.issues.map((i: { path: string }) => i.path))].sort()).toEqual(paths);
    expect(await rowCounts(db.sql)).toEqual(counts);
  });

  it.each(["toString", "constructor", "__proto__", "hasOwnProperty"])(
    "?%s=1 is an unknown parameter, not one given twice",
    async (name) => {
      const res = await call("GET", `/api/leads?${name}=1`);
      expect(res.status).toBe(400);
      expect(res.body.issues).toEqual([{ path: name, message: expect.not.stringMatching(/more than once/) }]);
      const repeated = await call("GET", `/api/leads?${name}=1&${name}=2`);
      expect(repeated.body.issues).toEqual([{ path: name, message: expect.stringMatching(/more than once/) }]);
    },
  );

  it.each([
    ["?limit=1", 1, 0],
    ["?limit=500", 500, 0],
    ["?limit=005", 5, 0],
    ["?offset=0", 100, 0],
    ["?offset=2147483647", 100, 2147483647],
    ["?limit=500&offset=2147483647", 500, 2147483647],
  ])("%s is accepted at the bounds", async (query, limit, offset) => {
    const { pagination } = await listLeads(query);
    expect(pagination).toMatchObject({ total: 185, limit, offset });
  });

  it.each([["ab"], ["x".repeat(120)], [` ${"x".repeat(120)} `]])(
    "a referrer of 2 to 120 trimmed characters is accepted (%#)",
    async (referrer) => {
      expect((await listLeads(`?referrer=${encodeURIComponent(referrer)}`)).pagination.total).toBe(0);
    },
  );
});

describe("authentication", () => {
  it("answers 401 UNAUTHORIZED to a wrong, missing or non-bearer key, before looking at the query", async () => {
    for (const query of ["", "?limit=5", "?limit=0&foo=1"]) {
      for (const options of [
        { key: "wrong-key" },
        { key: "test-key-0123456789x" },
        { key: null },
        { headers: { authorization: "test-key-0123456789" } },
      ]) {
        const res = await call("GET", `/api/leads${query}`, options);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: expect.any(String), code: "UNAUTHORIZED", requestId: expect.any(String) });
        expect(res.headers.get("cache-control")).toBe("no-store");
      }
    }
  });

  it("does not take the key from the URL", async () => {
    const res = await call("GET", "/api/leads?key=test-key-0123456789", { key: null });
    expect(res.status).toBe(401);
  });

  it("answers 503 API_NOT_CONFIGURED when the server has no key", async () => {
    expectError(await notConfigured(() => call("GET", "/api/leads")), 503, "API_NOT_CONFIGURED");
  });
});

it("reading creates and changes nothing", async () => {
  const snapshot = async () =>
    (await db.sql.query(`SELECT id, status, assigned_agent_id, created_at FROM referrals ORDER BY id`)).rows;
  const counts = await rowCounts(db.sql);
  const before = await snapshot();
  await allPages(50);
  await allPages(20, "Google Ads");
  await listLeads("?referrer=Nobody%20Here");
  expect(await rowCounts(db.sql)).toEqual(counts);
  expect(await snapshot()).toEqual(before);
});
