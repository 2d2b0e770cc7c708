import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, post } from "../helpers/api";
import { expectError } from "../helpers/expect-api";
import { notConfigured } from "../helpers/key";
import { createTestDatabase, rowCounts, type TestDatabase } from "../helpers/db";
import { insertUser, keysOf } from "../helpers/read-fixtures";
import { validLead } from "../helpers/lead";

/** Spec "GET /api/leads/agents" (alias /api/agents) and the Agent resource, on the normal data layout. */

const PATHS = ["/api/leads/agents", "/api/agents"];
type Agent = { id: string; name: string; platformId: string; numericId: number; accessLevels: string[] };

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.sql.end());

async function listAgents(path = "/api/leads/agents"): Promise<Agent[]> {
  const res = await call("GET", path);
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(keysOf(res.body)).toEqual(["agents"]);
  return res.body.agents;
}

describe("GET /api/leads/agents", () => {
  it("answers an empty list when no user is eligible", async () => {
    await insertUser(db.sql, { name: "Nobody Yet", platformId: null, accessLevels: ["sales"] });
    expect(await listAgents()).toEqual([]);
  });

  describe("with users of every kind", () => {
    const eligible: Record<string, number> = {};
    beforeAll(async () => {
      eligible.aisyah = await insertUser(db.sql, {
        name: "Aisyah",
        platformId: "plat-aisyah",
        accessLevels: ["sales"],
      });
      eligible.ben = await insertUser(db.sql, {
        name: "Ben",
        platformId: "plat_ben_2",
        accessLevels: ["admin", "sales", "manager"],
      });
      await insertUser(db.sql, { name: "Chong", platformId: null, accessLevels: ["sales"] });
      await insertUser(db.sql, { name: "Devi", platformId: "plat-devi", accessLevels: ["admin"] });
      await insertUser(db.sql, { name: "Eng", platformId: "plat-eng", accessLevels: [] });
      await insertUser(db.sql, { name: "Farid", platformId: "plat-farid", accessLevels: null });
      await insertUser(db.sql, { name: "Gopal", platformId: "plat-gopal", accessLevels: ["salesman", "pre-sales"] });
      await insertUser(db.sql, { name: "Hui Min", platformId: null, accessLevels: [] });
    });

    it("lists exactly the users with a platform id and sales among their access levels", async () => {
      const agents = await listAgents();
      expect(agents.map((a) => a.name).sort()).toEqual(["Aisyah", "Ben"]);
    });

    it("gives each agent exactly id, name, platformId, numericId and accessLevels, with id equal to platformId", async () => {
      const agents = await listAgents();
      expect(agents).not.toHaveLength(0);
      for (const agent of agents) {
        expect(keysOf(agent)).toEqual(["accessLevels", "id", "name", "numericId", "platformId"]);
        expect(agent.id).toBe(agent.platformId);
        expect(Number.isInteger(agent.numericId)).toBe(true);
      }
      const byName = new Map(agents.map((a) => [a.name, a]));
      expect(byName.get("Aisyah")).toEqual({
        id: "plat-aisyah",
        name: "Aisyah",
        platformId: "plat-aisyah",
        numericId: eligible.aisyah,
        accessLevels: ["sales"],
      });
      expect(byName.get("Ben")).toEqual({
        id: "plat_ben_2",
        name: "Ben",
        platformId: "plat_ben_2",
        numericId: eligible.ben,
        accessLevels: ["admin", "sales", "manager"],
      });
    });

    it("answers identically on the alias /api/agents", async () => {
      const [main, alias] = await Promise.all(PATHS.map((path) => call("GET", path)));
      expect(alias.status).toBe(200);
      expect(alias.headers.get("cache-control")).toBe("no-store");
      expect(alias.body).toEqual(main.body);
    });

    it("lists agents that POST /api/leads accepts as assignedAgentId, by id or by numericId", async () => {
      for (const agent of await listAgents()) {
        for (const assignedAgentId of [agent.id, agent.numericId, String(agent.numericId)]) {
          const res = await post(
            validLead({
              leadName: "Lead For " + agent.name,
              referrer: "Website Form",
              assignedAgentId,
            }),
          );
          expect(res.status, res.text).toBe(201);
          expect(res.body.lead.status).toBe("Assigned");
          expect(res.body.lead.assignedAgentId).toBe(agent.platformId);
        }
      }
    });

    it("lists no user that POST /api/leads would refuse as assignedAgentId", async () => {
      const { rows } = await db.sql.query<{ id: number; platform_id: string | null }>(
        `SELECT id, platform_id FROM users WHERE name IN ('Chong', 'Devi', 'Eng', 'Farid', 'Gopal')`,
      );
      expect(rows).not.toHaveLength(0);
      for (const user of rows) {
        const res = await post(
          validLead({
            leadName: "Not Assignable",
            referrer: "Website Form",
            assignedAgentId: user.platform_id ?? user.id,
          }),
        );
        expect(res.status, res.text).toBe(422);
        expect(res.body.code).toBe("INVALID_AGENT");
      }
    });

    it("creates no row", async () => {
      const counts = await rowCounts(db.sql);
      for (const path of PATHS) await listAgents(path);
      expect(await rowCounts(db.sql)).toEqual(counts);
    });
  });
});

describe("GET /api/leads/agents without the right key", () => {
  it.each(PATHS)("%s answers 401 UNAUTHORIZED for a wrong or missing key", async (path) => {
    for (const key of ["wrong-key", "", null]) {
      const res = await call("GET", path, { key });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String), code: "UNAUTHORIZED", requestId: expect.any(String) });
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
  });

  it.each(PATHS)("%s answers 503 API_NOT_CONFIGURED when the server has no key", async (path) => {
    expectError(await notConfigured(() => call("GET", path)), 503, "API_NOT_CONFIGURED");
  });
});
