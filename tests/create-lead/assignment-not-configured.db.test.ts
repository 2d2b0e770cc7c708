import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, post } from "../helpers/api";
import { createTestDatabase, rowCounts, type TestDatabase } from "../helpers/db";
import { expectError, expectNoWrites } from "../helpers/expect-api";
import { insertPerson, insertUser, keysOf } from "../helpers/read-fixtures";
import { validLead } from "../helpers/lead";

/**
 * POST /api/leads on a host database without assignment storage (no
 * referrals.assigned_agent_id): spec Errors "503 ASSIGNMENT_NOT_CONFIGURED:
 * Assignment storage not enabled (POST)", and its place last in the order of
 * checks (decisions.md 2). The service reads the layout once per client, and its
 * client is per test file, so this file alters its database before any request.
 */

let db: TestDatabase;
let salesId: number;
let personId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql.query(`ALTER TABLE referrals DROP COLUMN assigned_agent_id`);
  salesId = await insertUser(db.sql, { name: "Sara Sales", platformId: "plat_sales_1", accessLevels: ["sales"] });
  personId = await insertPerson(db.sql, "Siti Aminah");
  // The first request prepares the service (the configured sources), so later row counts measure requests only.
  expect((await call("GET", "/api/leads/sources")).status).toBe(200);
});

afterAll(() => db.sql.end());

const MIN = validLead();

describe("POST /api/leads without assignment storage", () => {
  it("answers a valid agent with 503 ASSIGNMENT_NOT_CONFIGURED and saves nothing", async () => {
    for (const assignedAgentId of ["plat_sales_1", salesId, String(salesId)]) {
      const res = await expectNoWrites(db.sql, () => post({ ...MIN, assignedAgentId }));
      expectError(res, 503, "ASSIGNMENT_NOT_CONFIGURED");
    }
  });

  it("does not create the new source named by a request it refuses", async () => {
    const res = await expectNoWrites(db.sql, () =>
      post({ ...MIN, referrer: "Sabah Home Fair", assignedAgentId: "plat_sales_1" }),
    );
    expectError(res, 503, "ASSIGNMENT_NOT_CONFIGURED");
    const { rows } = await db.sql.query(`SELECT id FROM customers WHERE lower(name) = 'sabah home fair'`);
    expect(rows).toEqual([]);
  });

  it("checks the agent first: an ineligible or unknown agent is 422 INVALID_AGENT", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(await post({ ...MIN, assignedAgentId: "plat_nobody" }), 422, "INVALID_AGENT");
      expectError(await post({ ...MIN, assignedAgentId: 999999 }), 422, "INVALID_AGENT");
    });
  });

  it("checks the referrer and the body before that", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(
        await post({ ...MIN, referrer: { customerId: "cus_does_not_exist" }, assignedAgentId: "plat_sales_1" }),
        422,
        "INVALID_REFERRER",
      );
      expectError(await post({ ...MIN, leadName: "A", assignedAgentId: "plat_sales_1" }), 400, "INVALID_INPUT");
      expectError(await post("{", {}), 400, "INVALID_JSON");
    });
  });

  it("still creates unassigned leads: 201 Pending with assignedAgentId null", async () => {
    const before = await rowCounts(db.sql);
    for (const referrer of ["Facebook Ads", { customerId: personId }]) {
      const res = await post({ ...MIN, referrer });
      expect(res.status, res.text).toBe(201);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(keysOf(res.body.lead)).toEqual(
        [
          "assignedAgentId",
          "leadCustomerId",
          "leadMobileNumber",
          "leadName",
          "referralId",
          "referrer",
          "status",
        ].sort(),
      );
      expect(res.body.lead).toMatchObject({
        assignedAgentId: null,
        status: "Pending",
        leadMobileNumber: "60123456789",
      });
      const { rows } = await db.sql.query(`SELECT status, preferred_agent_id FROM referrals WHERE id = $1`, [
        res.body.lead.referralId,
      ]);
      expect(rows).toEqual([{ status: "Pending", preferred_agent_id: null }]);
    }
    expect(await rowCounts(db.sql)).toEqual({
      ...before,
      customers: before.customers + 2,
      referrals: before.referrals + 2,
      audit_entries: before.audit_entries + 2,
    });
  });
});
