import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, post } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { insertUser, keysOf, listLeads } from "../helpers/read-fixtures";
import { validLead } from "../helpers/lead";

/**
 * Legacy data layout (decisions.md 9): users without an access_levels column. The
 * layout is read once per client, so this file alters its database copy before the
 * service's first request.
 */

let db: TestDatabase;
const ids: Record<string, number> = {};
beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql.query(`ALTER TABLE users DROP COLUMN access_levels`);
  ids.aisyah = await insertUser(db.sql, { name: "Aisyah", platformId: "plat-aisyah" });
  ids.devi = await insertUser(db.sql, { name: "Devi", platformId: "plat-devi" });
  ids.chong = await insertUser(db.sql, { name: "Chong", platformId: null });
});
afterAll(() => db.sql.end());

describe("GET /api/leads/agents on the legacy layout", () => {
  it("lists every user with a platform id, with accessLevels []", async () => {
    const res = await call("GET", "/api/leads/agents");
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(keysOf(res.body)).toEqual(["agents"]);
    const agents = [...res.body.agents].sort((a, b) => a.numericId - b.numericId);
    expect(agents).toEqual([
      { id: "plat-aisyah", name: "Aisyah", platformId: "plat-aisyah", numericId: ids.aisyah, accessLevels: [] },
      { id: "plat-devi", name: "Devi", platformId: "plat-devi", numericId: ids.devi, accessLevels: [] },
    ]);
  });

  it("answers identically on the alias /api/agents", async () => {
    const [main, alias] = await Promise.all([call("GET", "/api/leads/agents"), call("GET", "/api/agents")]);
    expect(alias.status).toBe(200);
    expect(alias.body).toEqual(main.body);
  });

  it("still answers 401 for a wrong key", async () => {
    for (const path of ["/api/leads/agents", "/api/agents"]) {
      const res = await call("GET", path, { key: "wrong-key" });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("UNAUTHORIZED");
    }
  });
});

describe("POST /api/leads on the legacy layout", () => {
  it("accepts every listed agent as assignedAgentId, by platform id or numeric id: 201 Assigned", async () => {
    const { body } = await call("GET", "/api/leads/agents");
    expect(body.agents).not.toHaveLength(0);
    for (const agent of body.agents) {
      for (const assignedAgentId of [agent.id, agent.numericId]) {
        const res = await post(
          validLead({
            leadName: "Legacy Lead",
            assignedAgentId,
          }),
        );
        expect(res.status, res.text).toBe(201);
        expect(res.body.lead.status).toBe("Assigned");
        expect(res.body.lead.assignedAgentId).toBe(agent.platformId);
        const { rows } = await db.sql.query(`SELECT assigned_agent_id, status FROM referrals WHERE id = $1`, [
          res.body.lead.referralId,
        ]);
        expect(rows[0]).toEqual({ assigned_agent_id: agent.numericId, status: "Assigned" });
      }
    }
  });

  it("refuses a user without a platform id: 422 INVALID_AGENT", async () => {
    const res = await post(
      validLead({
        leadName: "Legacy Lead",
        assignedAgentId: ids.chong,
      }),
    );
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe("INVALID_AGENT");
  });

  it("lists the assigned leads with the agent's platform id", async () => {
    const { leads } = await listLeads("?referrer=Facebook%20Ads");
    expect(leads.map((l) => l.assignedAgentId).sort()).toEqual([
      "plat-aisyah",
      "plat-aisyah",
      "plat-devi",
      "plat-devi",
    ]);
    expect(leads.every((l) => l.status === "Assigned")).toBe(true);
  });
});
