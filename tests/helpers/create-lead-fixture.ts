import { afterAll, beforeAll, expect } from "vitest";
import { POST as postRoute } from "@/app/api/leads/route";
import { sourceKey } from "@/lib/leads/source-name";
import { call, TEST_KEY, type ApiResponse } from "./api";
import { createTestDatabase, type TestDatabase } from "./db";
import { insertPerson, insertUser, keysOf } from "./read-fixtures";
import { validLead } from "./lead";

/**
 * What the tests of POST /api/leads (tests/create-lead/*.db.test.ts) share. They call the real route handlers on a
 * real PostgreSQL database: spec "POST /api/leads" (rules 1 to 9), "Authentication", "Errors", the Created lead
 * resource, atomic creation, and decisions.md 2, 3, 4, 7, 8.
 */

export let db: TestDatabase;

/** Ids of the fixture rows. */
export const users: Record<string, number> = {};
export const configured: Record<string, string> = {};
export let personId: string;
export let companyId: string;

export const MIN = validLead();

/** The Created lead, checked to carry exactly the documented fields (spec "Created lead"). */
export function created(res: ApiResponse) {
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
export async function rawPost(init: {
  headers?: Record<string, string>;
  body?: BodyInit | null;
}): Promise<ApiResponse> {
  const request = new Request("http://localhost/api/leads", {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_KEY}`, ...init.headers },
    body: init.body,
  });
  const response = await postRoute(request);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}

export async function referralRow(id: number) {
  const { rows } = await db.sql.query(`SELECT * FROM referrals WHERE id = $1`, [id]);
  expect(rows).toHaveLength(1);
  return rows[0];
}

export async function customerRow(id: string) {
  const { rows } = await db.sql.query(`SELECT * FROM customers WHERE id = $1`, [id]);
  expect(rows).toHaveLength(1);
  return rows[0];
}

/** Every source account whose normalised name is this one. */
export async function sourcesNamed(name: string) {
  const { rows } = await db.sql.query(
    `SELECT c.id, c.name, c.source_type, n.key FROM customers c LEFT JOIN lead_source_names n ON n.customer_id = c.id
     WHERE c.kind = 'source' AND lead_intake_source_key(c.name) = $1`,
    [sourceKey(name)],
  );
  return rows;
}

export const BROKEN_JSON = '{"leadName": "Ali", ';

/** Creates the file's database with its users, person and company before its tests, and closes its pool after them. */
export function setUpCreateLead() {
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
}
