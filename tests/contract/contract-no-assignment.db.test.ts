import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { contractViolations } from "../helpers/openapi";
import { validLead } from "../helpers/lead";

/**
 * Contract check of the one documented outcome that needs its own database (the
 * host layout is read once per process): 503 ASSIGNMENT_NOT_CONFIGURED on a host
 * database whose referrals have no assigned_agent_id column.
 */

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  // Before this process's first request, so the layout is read without the column.
  await db.sql.query(`ALTER TABLE referrals DROP COLUMN assigned_agent_id`);
  await db.sql.query(
    `INSERT INTO users (name, platform_id, access_levels) VALUES ('Sarah Lim', 'sarah-lim-01', '{sales}')`,
  );
});

afterAll(async () => {
  await db.sql.end();
});

describe("contract: host database without assignment storage", () => {
  it("POST /api/leads with an agent: 503 ASSIGNMENT_NOT_CONFIGURED; without one: 201; the listing shows no agent", async () => {
    const body = validLead({ leadName: "Aminah Binti Ali" });
    const refused = await call("POST", "/api/leads", { body: { ...body, assignedAgentId: "sarah-lim-01" } });
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe("ASSIGNMENT_NOT_CONFIGURED");
    expect(contractViolations("POST", "/api/leads", refused)).toEqual([]);

    const created = await call("POST", "/api/leads", { body });
    expect(created.status).toBe(201);
    const list = await call("GET", "/api/leads");
    expect(list.body.leads).toEqual([
      expect.objectContaining({ referralId: created.body.lead.referralId, assignedAgentId: null }),
    ]);
  });
});
