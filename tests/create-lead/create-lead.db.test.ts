import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as postRoute } from "@/app/api/leads/route";
import { MAX_BODY_BYTES } from "@/lib/api/errors";
import { createLead } from "@/lib/leads/create-lead";
import { createLeadBody } from "@/lib/leads/schemas";
import { createDatabaseClient } from "@/lib/db/connect";
import { sourceKey } from "@/lib/leads/source-name";
import { call, post, TEST_KEY, type ApiResponse } from "../helpers/api";
import { withKeys } from "../helpers/key";
import { createTestDatabase, rowCounts, sourceCount, type TestDatabase } from "../helpers/db";
import { expectError, expectNoWrites } from "../helpers/expect-api";
import { insertPerson, insertUser, keysOf } from "../helpers/read-fixtures";
import { OPTIONAL_FIELDS } from "../helpers/oracle";
import { validLead } from "../helpers/lead";

/**
 * POST /api/leads through the real route handlers on a real PostgreSQL database:
 * spec "POST /api/leads" (rules 1 to 9), "Authentication", "Errors", the Created
 * lead resource, atomic creation, and decisions.md 2, 3, 4, 7, 8.
 */

let db: TestDatabase;

/** Ids of the fixture rows. */
const users: Record<string, number> = {};
const configured: Record<string, string> = {};
let personId: string;
let companyId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  // The first request prepares the service: migrations, then the configured sources (decisions.md 7).
  expect((await call("GET", "/api/leads/sources")).status).toBe(200);
  const { rows } = await db.sql.query<{ id: string; name: string }>(
    `SELECT id, name FROM customers WHERE kind = 'source'`,
  );
  for (const row of rows) configured[row.name] = row.id;
  expect(Object.keys(configured).sort()).toEqual(["Facebook Ads", "Google Ads", "TikTok Ads", "Website Form"]);

  users.sales = await insertUser(db.sql, { name: "Sara Sales", platformId: "plat_sales_1", accessLevels: ["sales"] });
  users.manager = await insertUser(db.sql, {
    name: "Mei Manager",
    platformId: "plat-multi-2",
    accessLevels: ["admin", "sales"],
  });
  users.admin = await insertUser(db.sql, { name: "Adam Admin", platformId: "plat_admin", accessLevels: ["admin"] });
  users.noLevels = await insertUser(db.sql, { name: "Nina None", platformId: "plat_none", accessLevels: [] });
  users.nullLevels = await insertUser(db.sql, { name: "Nul Levels", platformId: "plat_null", accessLevels: null });
  users.noPlatform = await insertUser(db.sql, { name: "Pat NoPlatform", platformId: null, accessLevels: ["sales"] });
  personId = await insertPerson(db.sql, "Siti Aminah");
  companyId = "org_acme_1";
  await db.sql.query(`INSERT INTO customers (id, kind, name) VALUES ($1, 'company', 'Acme Sdn Bhd')`, [companyId]);
});

afterAll(() => db.sql.end());

const MIN = validLead();

/** The Created lead, checked to carry exactly the documented fields (spec "Created lead"). */
function created(res: ApiResponse) {
  expect(res.status, res.text).toBe(201);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(keysOf(res.body)).toEqual(["lead"]);
  const lead = res.body.lead;
  expect(keysOf(lead)).toEqual(
    ["assignedAgentId", "leadCustomerId", "leadMobileNumber", "leadName", "referralId", "referrer", "status"].sort(),
  );
  expect(keysOf(lead.referrer)).toEqual(["customerId", "name", "type"]);
  expect(Number.isInteger(lead.referralId)).toBe(true);
  expect(typeof lead.leadCustomerId).toBe("string");
  expect(lead.leadMobileNumber).toMatch(/^60\d{9,11}$/);
  return lead as {
    referralId: number;
    leadCustomerId: string;
    leadName: string;
    leadMobileNumber: string;
    referrer: { customerId: string; name: string; type: "source" | "person" };
    assignedAgentId: string | null;
    status: "Pending" | "Assigned";
  };
}

/** Sends a request built by hand straight to the route handler (for bodies call() cannot express). */
async function rawPost(init: { headers?: Record<string, string>; body?: BodyInit | null }): Promise<ApiResponse> {
  const request = new Request("http://localhost/api/leads", {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_KEY}`, ...init.headers },
    body: init.body,
  });
  const response = await postRoute(request);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}

async function referralRow(id: number) {
  const { rows } = await db.sql.query(`SELECT * FROM referrals WHERE id = $1`, [id]);
  expect(rows).toHaveLength(1);
  return rows[0];
}

async function customerRow(id: string) {
  const { rows } = await db.sql.query(`SELECT * FROM customers WHERE id = $1`, [id]);
  expect(rows).toHaveLength(1);
  return rows[0];
}

/** Every source account whose normalised name is this one. */
async function sourcesNamed(name: string) {
  const { rows } = await db.sql.query(
    `SELECT c.id, c.name, c.source_type, n.key FROM customers c LEFT JOIN lead_source_names n ON n.customer_id = c.id
     WHERE c.kind = 'source' AND lead_intake_source_key(c.name) = $1`,
    [sourceKey(name)],
  );
  return rows;
}

const BROKEN_JSON = '{"leadName": "Ali", ';

describe("order of checks (decisions.md 2), with requests that break several rules at once", () => {
  it("503 API_NOT_CONFIGURED comes first, before the key, content type and body are looked at", async () => {
    for (const key of [undefined, ""]) {
      await withKeys({ LEADS_API_KEY: key }, () =>
        expectNoWrites(db.sql, async () => {
          expectError(
            await post(BROKEN_JSON, { key: null, headers: { "content-type": "text/plain" } }),
            503,
            "API_NOT_CONFIGURED",
          );
          expectError(
            await post(BROKEN_JSON, { key: "wrong", headers: { "content-type": "text/plain" } }),
            503,
            "API_NOT_CONFIGURED",
          );
          // An empty configured key is no key: an empty bearer value does not match it.
          expectError(await post(MIN, { headers: { authorization: "Bearer " } }), 503, "API_NOT_CONFIGURED");
          expectError(await post(MIN), 503, "API_NOT_CONFIGURED");
        }),
      );
    }
  });

  it("401 comes before 415, 400 and 413", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(
        await post(BROKEN_JSON, { key: "wrong", headers: { "content-type": "text/plain" } }),
        401,
        "UNAUTHORIZED",
      );
      expectError(await post(BROKEN_JSON, { key: null }), 401, "UNAUTHORIZED");
      expectError(await post({ ...MIN, leadName: "A", introducer: "x" }, { key: "wrong" }), 401, "UNAUTHORIZED");
      expectError(await post({ ...MIN, remark: "x".repeat(2 * MAX_BODY_BYTES) }, { key: null }), 401, "UNAUTHORIZED");
    });
  });

  it("415 comes before 400 INVALID_JSON and INVALID_INPUT", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(await post(BROKEN_JSON, { headers: { "content-type": "text/plain" } }), 415, "INVALID_CONTENT_TYPE");
      expectError(
        await post({ leadName: "A" }, { headers: { "content-type": "text/plain" } }),
        415,
        "INVALID_CONTENT_TYPE",
      );
    });
  });

  it("400 INVALID_JSON comes before INVALID_INPUT", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(await post(BROKEN_JSON), 400, "INVALID_JSON");
    });
  });

  it("400 INVALID_INPUT comes before 422 INVALID_REFERRER and INVALID_AGENT", async () => {
    const res = await expectNoWrites(db.sql, () =>
      post({ ...MIN, leadName: "A", referrer: { customerId: "cus_does_not_exist" }, assignedAgentId: "plat_nobody" }),
    );
    expectError(res, 400, "INVALID_INPUT");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(["leadName"]);
  });

  it("422 INVALID_REFERRER comes before 422 INVALID_AGENT", async () => {
    const res = await expectNoWrites(db.sql, () =>
      post({ ...MIN, referrer: { customerId: "cus_does_not_exist" }, assignedAgentId: "plat_nobody" }),
    );
    expectError(res, 422, "INVALID_REFERRER");
  });

  it("422 INVALID_AGENT comes after a referrer that resolves, also one that would be a new source", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(
        await post({ ...MIN, referrer: { customerId: personId }, assignedAgentId: "plat_nobody" }),
        422,
        "INVALID_AGENT",
      );
      expectError(
        await post({ ...MIN, referrer: "Never Created Expo", assignedAgentId: "plat_admin" }),
        422,
        "INVALID_AGENT",
      );
    });
    expect(await sourcesNamed("Never Created Expo")).toEqual([]);
  });
});

describe("authentication", () => {
  it.each(["Bearer", "bearer", "BEARER", "BeArEr"])(
    "accepts the scheme written %j (case-insensitive)",
    async (scheme) => {
      const lead = created(await post(MIN, { headers: { authorization: `${scheme} ${TEST_KEY}` } }));
      expect(lead.status).toBe("Pending");
    },
  );

  it.each([
    ["a wrong key", `Bearer wrong-key`],
    ["the key in another case", `Bearer ${TEST_KEY.toUpperCase()}`],
    ["the key with one more character", `Bearer ${TEST_KEY}x`],
    ["a prefix of the key", `Bearer ${TEST_KEY.slice(0, -1)}`],
    ["the scheme without a key", "Bearer"],
    ["the key without a scheme", TEST_KEY],
    ["another scheme", `Basic ${Buffer.from(`user:${TEST_KEY}`).toString("base64")}`],
    ["the key under another scheme", `Token ${TEST_KEY}`],
  ])("refuses %s with 401", async (_, authorization) => {
    const res = await expectNoWrites(db.sql, () => post(MIN, { headers: { authorization } }));
    expectError(res, 401, "UNAUTHORIZED");
  });

  it("refuses a missing Authorization header with 401", async () => {
    expectError(await expectNoWrites(db.sql, () => post(MIN, { key: null })), 401, "UNAUTHORIZED");
  });

  it.each(["key", "api_key", "apiKey", "access_token", "token", "LEADS_API_KEY", "authorization"])(
    "never authenticates with the key in the query string (?%s=…)",
    async (name) => {
      const res = await expectNoWrites(db.sql, () =>
        call("POST", `/api/leads?${name}=${encodeURIComponent(TEST_KEY)}`, { body: MIN, key: null }),
      );
      expectError(res, 401, "UNAUTHORIZED");
    },
  );

  it("never authenticates with the key in a cookie or another header", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(
        await post(MIN, { key: null, headers: { cookie: `key=${TEST_KEY}; token=${TEST_KEY}` } }),
        401,
        "UNAUTHORIZED",
      );
      expectError(await post(MIN, { key: null, headers: { "x-api-key": TEST_KEY } }), 401, "UNAUTHORIZED");
    });
  });
});

describe("content type (spec Authentication 6, decisions.md 3)", () => {
  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "Application/Json;charset=UTF-8",
  ])("accepts %j", async (contentType) => {
    created(await post(MIN, { headers: { "content-type": contentType } }));
  });

  it.each([
    "text/plain",
    "application/jsonx",
    "application/json-patch+json",
    "application/vnd.api+json",
    "text/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "",
  ])("refuses %j with 415", async (contentType) => {
    const res = await expectNoWrites(db.sql, () => post(MIN, { headers: { "content-type": contentType } }));
    expectError(res, 415, "INVALID_CONTENT_TYPE");
  });

  it("refuses a request without Content-Type with 415", async () => {
    const res = await expectNoWrites(db.sql, async () => {
      const body = new TextEncoder().encode(JSON.stringify(MIN));
      const probe = new Request("http://localhost/api/leads", { method: "POST", body });
      expect(probe.headers.get("content-type")).toBeNull();
      return rawPost({ body });
    });
    expectError(res, 415, "INVALID_CONTENT_TYPE");
  });
});

describe("request body", () => {
  it.each([
    ["an empty body", ""],
    ["white space only", "  \n "],
    ["an unfinished object", BROKEN_JSON],
    ["single quotes", "{'leadName': 'Ali'}"],
    ["a trailing comma", '{"leadName": "Ali bin Abu",}'],
    ["a bare word", "undefined"],
    ["NaN", "NaN"],
    ["two documents", '{"a":1}{"b":2}'],
  ])("answers %s with 400 INVALID_JSON", async (_, body) => {
    expectError(await expectNoWrites(db.sql, () => post(body)), 400, "INVALID_JSON");
  });

  it("answers a missing body with 400 INVALID_JSON", async () => {
    expectError(
      await expectNoWrites(db.sql, () => rawPost({ headers: { "content-type": "application/json" } })),
      400,
      "INVALID_JSON",
    );
  });

  it("answers bytes that are not UTF-8 with 400 INVALID_JSON", async () => {
    const json = new TextEncoder().encode(JSON.stringify({ ...MIN, leadName: "Ali XX" }));
    const at = json.indexOf("X".charCodeAt(0));
    json.set([0xff, 0xfe], at);
    const res = await expectNoWrites(db.sql, () =>
      rawPost({ headers: { "content-type": "application/json" }, body: json }),
    );
    expectError(res, 400, "INVALID_JSON");
  });

  it('answers JSON that is not an object with 400 INVALID_INPUT at path ""', async () => {
    for (const body of ["null", "[]", '"Ali"', "42", "true"]) {
      const res = await expectNoWrites(db.sql, () => post(body));
      expectError(res, 400, "INVALID_INPUT");
      expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual([""]);
    }
  });

  /** A valid JSON body of exactly `bytes` bytes (the remark is too long for the schema, which is fine here). */
  function bodyOfSize(bytes: number): string {
    const empty = JSON.stringify({ ...MIN, remark: "" });
    const body = JSON.stringify({ ...MIN, remark: "x".repeat(bytes - empty.length) });
    expect(Buffer.byteLength(body)).toBe(bytes);
    return body;
  }

  it("reads a body of exactly 1 MiB (then validates it)", async () => {
    const res = await expectNoWrites(db.sql, () => post(bodyOfSize(MAX_BODY_BYTES)));
    expectError(res, 400, "INVALID_INPUT");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(["remark"]);
  });

  it("answers a body over 1 MiB with 413 PAYLOAD_TOO_LARGE", async () => {
    for (const size of [MAX_BODY_BYTES + 1, 5 * MAX_BODY_BYTES]) {
      expectError(await expectNoWrites(db.sql, () => post(bodyOfSize(size))), 413, "PAYLOAD_TOO_LARGE");
    }
  });

  it("answers a streamed body over 1 MiB (no Content-Length) with 413 PAYLOAD_TOO_LARGE", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 2 * MAX_BODY_BYTES) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const request = new Request("http://localhost/api/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(request.headers.get("content-length")).toBeNull();
    const response = await expectNoWrites(db.sql, () => postRoute(request));
    const text = await response.text();
    expectError(
      { status: response.status, headers: response.headers, body: JSON.parse(text), text },
      413,
      "PAYLOAD_TOO_LARGE",
    );
  });

  it("answers an invalid field with 400 INVALID_INPUT and one issue per offending field", async () => {
    const res = await expectNoWrites(db.sql, () =>
      post({ ...MIN, leadName: " A ", leadMobileNumber: "+65 9123 4567", introducer: "Ali", remark: null }),
    );
    expectError(res, 400, "INVALID_INPUT");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual([
      "leadName",
      "leadMobileNumber",
      "remark",
      "introducer",
    ]);
  });

  it.each(["introducer", "source", "assigned_agent", "status", "campaignId"])(
    "rejects the unknown property %s (rule 7)",
    async (name) => {
      const res = await expectNoWrites(db.sql, () => post({ ...MIN, [name]: "x" }));
      expectError(res, 400, "INVALID_INPUT");
      expect(res.body.issues).toEqual([{ path: name, message: expect.any(String) }]);
    },
  );

  it("rejects __proto__ and constructor sent in the JSON text", async () => {
    for (const name of ["__proto__", "constructor"]) {
      const text = `{"leadName":"Ali bin Abu","leadMobileNumber":"0123456789","referrer":"Facebook Ads","${name}":{"status":"Assigned"}}`;
      const res = await expectNoWrites(db.sql, () => post(text));
      expectError(res, 400, "INVALID_INPUT");
      expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual([name]);
    }
  });

  it.each(OPTIONAL_FIELDS)("rejects null for the optional %s (rule 7)", async (field) => {
    const res = await expectNoWrites(db.sql, () => post({ ...MIN, [field]: null }));
    expectError(res, 400, "INVALID_INPUT");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual([field]);
  });

  it.each(["", "   "])("rejects the empty assignedAgentId %j (rule 7)", async (id) => {
    const res = await expectNoWrites(db.sql, () => post({ ...MIN, assignedAgentId: id }));
    expectError(res, 400, "INVALID_INPUT");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(["assignedAgentId"]);
  });
});

describe("a created lead", () => {
  it("answers the minimum body with 201 and exactly the documented fields, unassigned and Pending (rule 1)", async () => {
    const before = await rowCounts(db.sql);
    const res = await post(MIN);
    const lead = created(res);
    expect(res.body).toStrictEqual({
      lead: {
        referralId: expect.any(Number),
        leadCustomerId: expect.any(String),
        leadName: "Ali bin Abu",
        leadMobileNumber: "60123456789",
        referrer: { customerId: configured["Facebook Ads"], name: "Facebook Ads", type: "source" },
        assignedAgentId: null,
        status: "Pending",
      },
    });
    expect(await rowCounts(db.sql)).toEqual({
      ...before,
      customers: before.customers + 1,
      referrals: before.referrals + 1,
      audit_entries: before.audit_entries + 1,
    });

    // The lead customer: a person with the canonical mobile number.
    const customer = await customerRow(lead.leadCustomerId);
    expect(customer).toMatchObject({
      kind: "person",
      name: "Ali bin Abu",
      mobile_number: "60123456789",
      state: "",
      city: "",
      address: "",
      source_type: null,
    });
    expect(lead.leadCustomerId).not.toMatch(/^src_/);

    // The workflow record with every default.
    const referral = await referralRow(lead.referralId);
    expect(referral).toMatchObject({
      referrer_customer_id: configured["Facebook Ads"],
      lead_customer_id: lead.leadCustomerId,
      lead_name: "Ali bin Abu",
      mobile_number: "60123456789",
      status: "Pending",
      state: "",
      city: "",
      address: "",
      relationship: "Other",
      project_type: "OTHERS",
      remark: "",
      assigned_agent_id: null,
      preferred_agent_id: null,
    });
    expect(referral.created_at).toBeInstanceOf(Date);

    // Exactly one audit entry, pointing at the record.
    const { rows: audit } = await db.sql.query(`SELECT referral_id FROM audit_entries WHERE referral_id = $1`, [
      lead.referralId,
    ]);
    expect(audit).toEqual([{ referral_id: lead.referralId }]);
  });

  it("stores every optional field trimmed, and answers Assigned with the agent's platform id", async () => {
    const lead = created(
      await post(
        validLead({
          leadName: "  Tan Mei Ling  ",
          leadMobileNumber: " +60 11-2345 6789 ",
          referrer: "google   ADS",
          assignedAgentId: "plat_sales_1",
          leadState: " Pulau Pinang ",
          leadCity: " George Town ",
          leadAddress: " 12 Lebuh Chulia ",
          relationship: "Business Partner",
          projectType: "SHOP-LOT (2%)",
          remark: " Prefers WhatsApp ",
        }),
      ),
    );
    expect(lead).toStrictEqual({
      referralId: lead.referralId,
      leadCustomerId: lead.leadCustomerId,
      leadName: "Tan Mei Ling",
      leadMobileNumber: "601123456789",
      referrer: { customerId: configured["Google Ads"], name: "Google Ads", type: "source" },
      assignedAgentId: "plat_sales_1",
      status: "Assigned",
    });
    expect(await customerRow(lead.leadCustomerId)).toMatchObject({
      kind: "person",
      name: "Tan Mei Ling",
      mobile_number: "601123456789",
      state: "Pulau Pinang",
      city: "George Town",
      address: "12 Lebuh Chulia",
    });
    expect(await referralRow(lead.referralId)).toMatchObject({
      referrer_customer_id: configured["Google Ads"],
      lead_name: "Tan Mei Ling",
      mobile_number: "601123456789",
      status: "Assigned",
      state: "Pulau Pinang",
      city: "George Town",
      address: "12 Lebuh Chulia",
      relationship: "Business Partner",
      project_type: "SHOP-LOT (2%)",
      remark: "Prefers WhatsApp",
      assigned_agent_id: users.sales,
      preferred_agent_id: null,
    });
  });

  it('stores blank optional text fields as "" (decisions.md 4)', async () => {
    const lead = created(await post({ ...MIN, leadState: "", leadCity: "   ", leadAddress: " \t ", remark: "" }));
    expect(await customerRow(lead.leadCustomerId)).toMatchObject({ state: "", city: "", address: "" });
    expect(await referralRow(lead.referralId)).toMatchObject({ state: "", city: "", address: "", remark: "" });
  });

  it.each([
    ["012-345 6789", "60123456789"],
    ["12 345 6789", "60123456789"],
    ["(011) 2345.6789", "601123456789"],
    ["60123456789", "60123456789"],
  ])("answers and stores the mobile %j as %s (rule 2)", async (mobile, canonical) => {
    const lead = created(await post({ ...MIN, leadMobileNumber: mobile }));
    expect(lead.leadMobileNumber).toBe(canonical);
    expect((await customerRow(lead.leadCustomerId)).mobile_number).toBe(canonical);
    expect((await referralRow(lead.referralId)).mobile_number).toBe(canonical);
  });

  it("is not idempotent: the same body twice makes two lead customers and two records (rule 8)", async () => {
    const body = { ...MIN, leadName: "Repeat Caller", leadMobileNumber: "019-888 7777" };
    const before = await rowCounts(db.sql);
    const first = created(await post(body));
    const second = created(await post(body));
    expect(second.referralId).not.toBe(first.referralId);
    expect(second.leadCustomerId).not.toBe(first.leadCustomerId);
    expect(second.referrer).toEqual(first.referrer);
    expect(await rowCounts(db.sql)).toEqual({
      ...before,
      customers: before.customers + 2,
      referrals: before.referrals + 2,
      audit_entries: before.audit_entries + 2,
    });
    const { rows } = await db.sql.query(
      `SELECT count(*)::int AS n FROM customers WHERE kind = 'person' AND mobile_number = '60198887777'`,
    );
    expect(rows[0].n).toBe(2);
  });
});

describe("referrer as a string (rules 3 and 5)", () => {
  it.each([
    "Facebook Ads",
    "facebook ads",
    "  FACEBOOK    ADS  ",
    "fAcEbOoK\tAds",
    "TikTok Ads",
    "tiktok  ads",
    "website form",
  ])(
    "resolves the configured source %j by name, case and spacing ignored, creating nothing but the lead",
    async (name) => {
      const sources = await sourceCount(db.sql);
      const lead = created(await post({ ...MIN, referrer: name }));
      const expected = Object.keys(configured).find((n) => sourceKey(n) === sourceKey(name))!;
      expect(lead.referrer).toStrictEqual({ customerId: configured[expected], name: expected, type: "source" });
      expect(await sourceCount(db.sql)).toBe(sources);
      expect((await referralRow(lead.referralId)).referrer_customer_id).toBe(configured[expected]);
    },
  );

  it("resolves a source id returned by GET /api/leads/sources", async () => {
    const listed = await call("GET", "/api/leads/sources");
    const website = listed.body.sources.find((s: { name: string }) => s.name === "Website Form");
    const sources = await sourceCount(db.sql);
    for (const referrer of [website.id, `  ${website.id}  `]) {
      const lead = created(await post({ ...MIN, referrer }));
      expect(lead.referrer).toStrictEqual({ customerId: website.id, name: "Website Form", type: "source" });
    }
    expect(await sourceCount(db.sql)).toBe(sources);
  });

  it("creates a new source (type other) on the first POST and reuses it for case and spacing variants", async () => {
    const before = await rowCounts(db.sql);
    const first = created(await post({ ...MIN, referrer: "  Kuala Lumpur   Home Expo 2026 " }));
    expect(first.referrer.type).toBe("source");
    expect(first.referrer.name).toBe("Kuala Lumpur Home Expo 2026");
    expect(first.referrer.customerId).toMatch(/^src_/);
    expect(Object.values(configured)).not.toContain(first.referrer.customerId);
    expect(await rowCounts(db.sql)).toEqual({
      ...before,
      customers: before.customers + 2, // the source and the lead
      referrals: before.referrals + 1,
      audit_entries: before.audit_entries + 1,
      lead_source_names: before.lead_source_names + 1,
    });
    expect(await sourcesNamed("Kuala Lumpur Home Expo 2026")).toEqual([
      {
        id: first.referrer.customerId,
        name: "Kuala Lumpur Home Expo 2026",
        source_type: "other",
        key: "kuala lumpur home expo 2026",
      },
    ]);

    for (const variant of [
      "kuala lumpur home expo 2026",
      "KUALA LUMPUR HOME EXPO 2026",
      " Kuala  Lumpur Home  Expo 2026",
    ]) {
      const lead = created(await post({ ...MIN, referrer: variant }));
      expect(lead.referrer).toStrictEqual(first.referrer);
      expect((await referralRow(lead.referralId)).referrer_customer_id).toBe(first.referrer.customerId);
    }
    expect(await sourcesNamed("Kuala Lumpur Home Expo 2026")).toHaveLength(1);

    // The new source is listed like any other, with type other.
    const listed = await call("GET", "/api/leads/sources");
    expect(listed.body.sources).toContainEqual({
      id: first.referrer.customerId,
      name: "Kuala Lumpur Home Expo 2026",
      type: "other",
    });
    expect(listed.body.ads.map((s: { id: string }) => s.id)).not.toContain(first.referrer.customerId);
  });

  it("creates the new source only with a lead: a rejected POST naming it leaves no account", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(
        await post({ ...MIN, referrer: "Ipoh Roadshow", assignedAgentId: "plat_nobody" }),
        422,
        "INVALID_AGENT",
      );
      expectError(await post({ ...MIN, referrer: "Ipoh Roadshow", leadMobileNumber: "123" }), 400, "INVALID_INPUT");
    });
    expect(await sourcesNamed("Ipoh Roadshow")).toEqual([]);
  });

  it("takes an unknown src_ string as the name of a new source, never as an invented id (rule 5)", async () => {
    const invented = "src_0123456789abcdef01234567";
    const lead = created(await post({ ...MIN, referrer: invented }));
    expect(lead.referrer.type).toBe("source");
    expect(lead.referrer.name).toBe(invented);
    expect(lead.referrer.customerId).not.toBe(invented);
    expect(lead.referrer.customerId).toMatch(/^src_/);
    const { rows } = await db.sql.query(`SELECT id FROM customers WHERE id = $1`, [invented]);
    expect(rows).toEqual([]);
    expect(await sourcesNamed(invented)).toHaveLength(1);
  });

  it("never resolves a bare string to a person, neither by the person's name nor by id (rule 5)", async () => {
    for (const referrer of ["Siti Aminah", personId]) {
      const sources = await sourceCount(db.sql);
      const lead = created(await post({ ...MIN, referrer }));
      expect(lead.referrer.type).toBe("source");
      expect(lead.referrer.name).toBe(referrer);
      expect(lead.referrer.customerId).not.toBe(personId);
      expect(lead.referrer.customerId).toMatch(/^src_/);
      expect(await sourceCount(db.sql)).toBe(sources + 1);
      expect((await referralRow(lead.referralId)).referrer_customer_id).toBe(lead.referrer.customerId);
    }
  });

  it("never resolves a bare string to a lead customer created earlier", async () => {
    const earlier = created(await post({ ...MIN, leadName: "Earlier Lead" }));
    const lead = created(await post({ ...MIN, referrer: earlier.leadCustomerId }));
    expect(lead.referrer.type).toBe("source");
    expect(lead.referrer.customerId).not.toBe(earlier.leadCustomerId);
    expect(lead.referrer.name).toBe(earlier.leadCustomerId);
  });
});

describe("referrer as an object {customerId} (rule 4)", () => {
  it("names an existing person: referrer.type is person", async () => {
    const before = await rowCounts(db.sql);
    const lead = created(await post({ ...MIN, referrer: { customerId: personId } }));
    expect(lead.referrer).toStrictEqual({ customerId: personId, name: "Siti Aminah", type: "person" });
    expect((await referralRow(lead.referralId)).referrer_customer_id).toBe(personId);
    // Only the lead customer is new: the object form creates no account.
    expect(await rowCounts(db.sql)).toEqual({
      ...before,
      customers: before.customers + 1,
      referrals: before.referrals + 1,
      audit_entries: before.audit_entries + 1,
    });
  });

  it("names an existing source: referrer.type is source", async () => {
    const sources = await sourceCount(db.sql);
    const lead = created(await post({ ...MIN, referrer: { customerId: `  ${configured["TikTok Ads"]} ` } }));
    expect(lead.referrer).toStrictEqual({ customerId: configured["TikTok Ads"], name: "TikTok Ads", type: "source" });
    expect(await sourceCount(db.sql)).toBe(sources);
  });

  it("names a lead customer created earlier as a person", async () => {
    const earlier = created(await post({ ...MIN, leadName: "Referring Lead" }));
    const lead = created(await post({ ...MIN, referrer: { customerId: earlier.leadCustomerId } }));
    expect(lead.referrer).toStrictEqual({ customerId: earlier.leadCustomerId, name: "Referring Lead", type: "person" });
  });

  it.each([
    ["an unknown id", "cus_does_not_exist"],
    ["an unknown src_ id", "src_0000000000000000"],
    ["a source name instead of an id", "Facebook Ads"],
    ["a person's name instead of an id", "Siti Aminah"],
  ])("rejects %s with 422 INVALID_REFERRER and creates nothing", async (_, customerId) => {
    const res = await expectNoWrites(db.sql, () => post({ ...MIN, referrer: { customerId } }));
    expectError(res, 422, "INVALID_REFERRER");
  });

  it("rejects an account that is neither a person nor a source with 422 INVALID_REFERRER", async () => {
    const res = await expectNoWrites(db.sql, () => post({ ...MIN, referrer: { customerId: companyId } }));
    expectError(res, 422, "INVALID_REFERRER");
  });
});

describe("assignedAgentId (rule 6)", () => {
  it.each([
    ["the platform id", () => "plat_sales_1", "plat_sales_1", () => users.sales],
    ["the numeric id as an integer", () => users.sales, "plat_sales_1", () => users.sales],
    ["the numeric id as a digit string", () => String(users.sales), "plat_sales_1", () => users.sales],
    ["the platform id with white space around it", () => "  plat-multi-2 ", "plat-multi-2", () => users.manager],
    [
      "the numeric id of a user with sales among other levels",
      () => users.manager,
      "plat-multi-2",
      () => users.manager,
    ],
  ])("assigns by %s and answers the platform id", async (_, id, platformId, userId) => {
    const lead = created(await post({ ...MIN, assignedAgentId: id() }));
    expect(lead.status).toBe("Assigned");
    expect(lead.assignedAgentId).toBe(platformId);
    expect(await referralRow(lead.referralId)).toMatchObject({
      status: "Assigned",
      assigned_agent_id: userId(),
      preferred_agent_id: null,
    });
  });

  it("assigns independently of the referrer: a person referrer and an agent", async () => {
    const lead = created(await post({ ...MIN, referrer: { customerId: personId }, assignedAgentId: "plat_sales_1" }));
    expect(lead).toMatchObject({ status: "Assigned", assignedAgentId: "plat_sales_1", referrer: { type: "person" } });
  });

  it.each([
    ["a user without sales access, by platform id", () => "plat_admin"],
    ["a user without sales access, by numeric id", () => users.admin],
    ["a user with no access levels", () => "plat_none"],
    ["a user with NULL access levels", () => users.nullLevels],
    ["a sales user without platform id, by integer", () => users.noPlatform],
    ["a sales user without platform id, by digit string", () => String(users.noPlatform)],
    ["an unknown platform id", () => "plat_nobody"],
    ["an unknown numeric id", () => 999999],
    ["an unknown digit string", () => "999999"],
    ['"0"', () => "0"],
    ["the largest integer accepted", () => 9007199254740991],
    ["a digit string beyond any integer column", () => "99999999999999999999"],
  ])("rejects %s with 422 INVALID_AGENT and creates nothing", async (_, id) => {
    const res = await expectNoWrites(db.sql, () => post({ ...MIN, assignedAgentId: id() }));
    expectError(res, 422, "INVALID_AGENT");
  });
});

describe("atomic creation", () => {
  it("saves nothing when the audit entry fails, and answers 500 INTERNAL_ERROR without internals", async () => {
    // The route logs the failure; keep the test output clean.
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    await db.sql.query(`
      CREATE FUNCTION test_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit_entries insert refused by test trigger'; END $$;
      CREATE TRIGGER test_refuse_audit BEFORE INSERT ON audit_entries FOR EACH ROW EXECUTE FUNCTION test_refuse_audit();`);
    try {
      const before = await rowCounts(db.sql);
      for (const body of [
        { ...MIN, leadName: "Atomic Lead", referrer: "Melaka Atomic Fair", assignedAgentId: "plat_sales_1" },
        { ...MIN, leadName: "Atomic Lead", referrer: { customerId: personId } },
      ]) {
        const res = await post(body);
        expectError(res, 500, "INTERNAL_ERROR");
        expect(res.text).not.toMatch(
          /audit|trigger|insert|select|sql|prisma|postgres|stack|\bat\s|Atomic|60123456789/i,
        );
      }
      expect(await rowCounts(db.sql)).toEqual(before);
      expect(await sourcesNamed("Melaka Atomic Fair")).toEqual([]);
      const { rows } = await db.sql.query(`SELECT count(*)::int AS n FROM customers WHERE name = 'Atomic Lead'`);
      expect(rows[0].n).toBe(0);
    } finally {
      await db.sql.query(`DROP TRIGGER test_refuse_audit ON audit_entries; DROP FUNCTION test_refuse_audit();`);
      errors.mockRestore();
    }
    // The same request succeeds once the audit entry can be written.
    const lead = created(await post({ ...MIN, leadName: "Atomic Lead", referrer: "Melaka Atomic Fair" }));
    expect(lead.referrer.name).toBe("Melaka Atomic Fair");
  });
});

/** A failed creation, short enough to read in an assertion message. */
function describeFailure(error: unknown): string {
  const { name, code, message, meta } = error as { name?: string; code?: string; message?: string; meta?: unknown };
  return `${name} ${code}: ${message?.split("\n").pop()} ${JSON.stringify(meta)}`;
}

describe("concurrency", () => {
  it("40 concurrent creations naming one new source through two independent clients make one source and 40 leads", async () => {
    const clients = [0, 1].map(() => createDatabaseClient(db.url));
    try {
      const variants = [
        "Johor Bahru Property Fair",
        "johor bahru property fair",
        "  JOHOR  BAHRU PROPERTY FAIR ",
        "Johor Bahru  Property\tFair",
      ];
      const input = (i: number) =>
        createLeadBody.parse({
          leadName: `Concurrent ${i}`,
          leadMobileNumber: `01234567${String(i).padStart(2, "0")}`,
          referrer: variants[i % variants.length],
        });
      const before = await rowCounts(db.sql);
      // Half through each client, as two server processes on one database would.
      const settled = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) => createLead(clients[i % 2], input(i))),
      );

      const failures = settled.flatMap((r) => (r.status === "rejected" ? [describeFailure(r.reason)] : []));
      expect(failures).toEqual([]);
      const results = settled.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof createLead>>>).value);

      const sources = await sourcesNamed("Johor Bahru Property Fair");
      expect(sources).toHaveLength(1);
      expect(sources[0]).toMatchObject({ source_type: "other", key: "johor bahru property fair" });
      expect(new Set(results.map((r) => r.referrer.customerId))).toEqual(new Set([sources[0].id]));
      expect(new Set(results.map((r) => r.referralId)).size).toBe(40);
      expect(new Set(results.map((r) => r.leadCustomerId)).size).toBe(40);
      expect(await rowCounts(db.sql)).toEqual({
        ...before,
        customers: before.customers + 41,
        referrals: before.referrals + 40,
        audit_entries: before.audit_entries + 40,
        lead_source_names: before.lead_source_names + 1,
      });
      const { rows } = await db.sql.query(
        `SELECT count(*)::int AS referrals, count(DISTINCT a.id)::int AS audits
         FROM referrals r JOIN audit_entries a ON a.referral_id = r.id WHERE r.referrer_customer_id = $1`,
        [sources[0].id],
      );
      expect(rows[0]).toEqual({ referrals: 40, audits: 40 });
    } finally {
      await Promise.all(clients.map((c) => c.$disconnect()));
    }
  });
});
