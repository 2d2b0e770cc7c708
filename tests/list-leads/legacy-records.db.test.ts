import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, post } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import {
  insertPerson,
  insertSource,
  insertUser,
  ISO_MS,
  keysOf,
  LISTED_LEAD_KEYS,
  listLeads,
} from "../helpers/read-fixtures";
import { validLead } from "../helpers/lead";

/**
 * Legacy workflow records, written by the host before this module existed: no lead
 * customer, no mobile, no creation time, NULL text columns and statuses outside the
 * interface values. Spec "Listed lead" and decisions.md 10: listed with null / ""
 * and the stored status passed through unchanged.
 */

let db: TestDatabase;
let oldSource: string;
let untypedSource: string;
let personId: string;
const rec: Record<string, number> = {};

async function insertReferral(values: Record<string, unknown>): Promise<number> {
  const columns = Object.keys(values);
  const { rows } = await db.sql.query<{ id: number }>(
    `INSERT INTO referrals (${columns.join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")}) RETURNING id`,
    Object.values(values),
  );
  return rows[0].id;
}

const ALL_NULL = {
  lead_customer_id: null,
  mobile_number: null,
  created_at: null,
  state: null,
  city: null,
  address: null,
  relationship: null,
  project_type: null,
  remark: null,
  assigned_agent_id: null,
};

beforeAll(async () => {
  db = await createTestDatabase();
  oldSource = await insertSource(db.sql, "Old  Newspaper Ad", "other");
  const { rows } = await db.sql.query<{ id: string }>(
    `INSERT INTO customers (id, kind, name) VALUES ('src_legacy_untyped', 'source', 'Walk-in') RETURNING id`,
  );
  untypedSource = rows[0].id;
  await db.sql.query(`INSERT INTO lead_source_names (key, customer_id) VALUES ('walk-in', $1)`, [untypedSource]);
  personId = await insertPerson(db.sql, "Lim Siew Ling");
  const agent = await insertUser(db.sql, { name: "Rahman", platformId: "plat-rahman", accessLevels: ["sales"] });
  const noPlatformUser = await insertUser(db.sql, { name: "Old Staff", platformId: null, accessLevels: ["sales"] });

  rec.bare = await insertReferral({
    ...ALL_NULL,
    referrer_customer_id: oldSource,
    lead_name: "Bare Legacy",
    status: "Closed-Legacy",
  });
  rec.contacted = await insertReferral({
    ...ALL_NULL,
    referrer_customer_id: oldSource,
    lead_name: "Contacted Legacy",
    mobile_number: "60198765432",
    status: "Contacted",
    created_at: "2019-03-04 05:06:07.123+08",
    relationship: "Cousin",
    project_type: "CONDO",
    assigned_agent_id: noPlatformUser,
  });
  rec.person = await insertReferral({
    ...ALL_NULL,
    referrer_customer_id: personId,
    lead_name: "Person Legacy",
    status: "Closed-Legacy",
  });
  rec.qualified = await insertReferral({
    ...ALL_NULL,
    referrer_customer_id: untypedSource,
    lead_customer_id: personId,
    lead_name: "Qualified Legacy",
    status: "Qualified",
    created_at: "2020-01-01T00:00:00Z",
    state: "",
    city: "Ipoh",
    address: "",
    remark: "",
    assigned_agent_id: agent,
  });
  for (const status of ["Successful", "Rejected", "successful ", "Follow-up (old)", ""]) {
    rec[`status:${status}`] = await insertReferral({
      ...ALL_NULL,
      referrer_customer_id: oldSource,
      lead_name: "Status Legacy",
      status,
    });
  }
});
afterAll(() => db.sql.end());

describe("legacy records in GET /api/leads", () => {
  it("lists a record with every optional column NULL: null ids, mobile and createdAt, empty strings, status unchanged", async () => {
    const { leads } = await listLeads("?limit=500");
    expect(leads.find((l) => l.referralId === rec.bare)).toEqual({
      referralId: rec.bare,
      leadCustomerId: null,
      leadName: "Bare Legacy",
      leadMobileNumber: null,
      referrer: { customerId: oldSource, name: "Old  Newspaper Ad", type: "source" },
      assignedAgentId: null,
      status: "Closed-Legacy",
      leadState: "",
      leadCity: "",
      leadAddress: "",
      relationship: "",
      projectType: "",
      remark: "",
      createdAt: null,
    });
  });

  it("passes legacy relationship, project type and every stored status through unchanged", async () => {
    const { leads } = await listLeads("?limit=500");
    const byId = new Map(leads.map((l) => [l.referralId, l]));
    expect(byId.get(rec.contacted)).toMatchObject({
      leadMobileNumber: "60198765432",
      status: "Contacted",
      relationship: "Cousin",
      projectType: "CONDO",
    });
    for (const status of ["Successful", "Rejected", "successful ", "Follow-up (old)", ""]) {
      expect(byId.get(rec[`status:${status}`])!.status).toBe(status);
    }
    expect(byId.get(rec.qualified)!.status).toBe("Qualified");
  });

  it("gives createdAt in UTC with a millisecond fraction and Z, whatever offset it was stored with", async () => {
    const { leads } = await listLeads("?limit=500");
    const byId = new Map(leads.map((l) => [l.referralId, l]));
    expect(byId.get(rec.contacted)!.createdAt).toBe("2019-03-03T21:06:07.123Z");
    expect(byId.get(rec.qualified)!.createdAt).toBe("2020-01-01T00:00:00.000Z");
    expect(leads).not.toHaveLength(0);
    for (const lead of leads) {
      expect(keysOf(lead)).toEqual(LISTED_LEAD_KEYS);
      if (lead.createdAt !== null) expect(lead.createdAt).toMatch(ISO_MS);
    }
  });

  it("gives null assignedAgentId when the assigned user has no platform id, and the platform id otherwise", async () => {
    const { leads } = await listLeads("?limit=500");
    const byId = new Map(leads.map((l) => [l.referralId, l]));
    expect(byId.get(rec.contacted)!.assignedAgentId).toBeNull();
    expect(byId.get(rec.qualified)).toMatchObject({
      leadCustomerId: personId,
      assignedAgentId: "plat-rahman",
      leadState: "",
      leadCity: "Ipoh",
      leadAddress: "",
      remark: "",
      relationship: "",
      projectType: "",
      referrer: { customerId: untypedSource, name: "Walk-in", type: "source" },
    });
  });

  it("lists legacy and new leads together, newest referralId first, without the person referral", async () => {
    const created = await post(validLead({ leadName: "New Lead", referrer: "old newspaper ad" }));
    expect(created.status, created.text).toBe(201);
    expect(created.body.lead.referrer.customerId).toBe(oldSource);

    const { leads, pagination } = await listLeads();
    const expected = [created.body.lead.referralId, ...Object.values(rec).filter((id) => id !== rec.person)].sort(
      (a, b) => b - a,
    );
    expect(leads.map((l) => l.referralId)).toEqual(expected);
    expect(pagination).toEqual({ total: expected.length, limit: 100, offset: 0, hasMore: false });
  });

  it("selects a legacy source's records by its name or id", async () => {
    for (const referrer of ["Old Newspaper Ad", "OLD   NEWSPAPER   AD", oldSource]) {
      const { leads, pagination } = await listLeads(`?referrer=${encodeURIComponent(referrer)}`);
      expect(pagination.total).toBe(8);
      expect(leads.every((l) => l.referrer.customerId === oldSource)).toBe(true);
      expect(leads.map((l) => l.referralId)).toContain(rec.bare);
    }
    expect((await listLeads("?referrer=walk-in")).leads.map((l) => l.referralId)).toEqual([rec.qualified]);
  });

  it("lists a host source stored without a type as type other", async () => {
    const res = await call("GET", "/api/leads/sources");
    expect(res.body.sources).toContainEqual({ id: untypedSource, name: "Walk-in", type: "other" });
    expect(res.body.ads.map((s: { id: string }) => s.id)).not.toContain(untypedSource);
  });
});
