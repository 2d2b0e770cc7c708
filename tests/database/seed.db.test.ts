import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPTIONAL_FIELD_NAMES } from "@/lib/leads/fields";
import { fixtureSchema, readFixture, type Fixture } from "@/scripts/seed/fixture";
import { seed } from "@/scripts/seed/load";
import { call, post } from "../helpers/api";
import { createTestDatabase, rowCounts, type TestDatabase } from "../helpers/db";
import { ISO_MS, keysOf, LISTED_LEAD_KEYS, listLeads, sourcesByName } from "../helpers/read-fixtures";
import { validLead } from "../helpers/lead";

/**
 * `npm run db:seed -- <fixture.json>` (scripts/seed.ts) with the shipped demo
 * fixture: idempotent by natural keys, and what it loads is what the read
 * operations serve.
 */

const DEMO = "prisma/seed/demo.json";

let db: TestDatabase;
let demo: Fixture;
beforeAll(async () => {
  db = await createTestDatabase();
  demo = await readFixture(DEMO);
});
afterAll(() => db.sql.end());

/** Every row the seed can write, in a stable order. */
async function snapshot(sql = db.sql) {
  const q = async (text: string) => (await sql.query(text)).rows;
  return {
    users: await q(`SELECT * FROM users ORDER BY id`),
    customers: await q(`SELECT * FROM customers ORDER BY id`),
    sourceNames: await q(`SELECT * FROM lead_source_names ORDER BY key`),
    referrals: await q(`SELECT * FROM referrals ORDER BY id`),
    counts: await q(`SELECT * FROM lead_referrer_counts ORDER BY customer_id, slot`),
  };
}

describe("seeding the demo fixture", () => {
  let first: Awaited<ReturnType<typeof snapshot>>;

  it("loads the fixture's users, persons, sources and records", async () => {
    const summary = await seed(db.url, demo);
    expect(summary).toEqual({ users: 6, persons: 3, sources: 6, referrals: 10 });
    first = await snapshot();
    expect(await rowCounts(db.sql)).toEqual({
      customers: 4 + 2 + 3,
      referrals: 10,
      audit_entries: 0,
      lead_source_names: 6,
      users: 6,
    });
    const { rows } = await db.sql.query(`SELECT kind, count(*)::int AS n FROM customers GROUP BY kind ORDER BY kind`);
    expect(rows).toEqual([
      { kind: "person", n: 3 },
      { kind: "source", n: 6 },
    ]);
  });

  it("leaves exactly the same rows when run again", async () => {
    await seed(db.url, demo);
    expect(await snapshot()).toEqual(first);
  });

  it("serves the fixture's agents, and only them, from GET /api/leads/agents", async () => {
    const res = await call("GET", "/api/leads/agents");
    expect(res.status).toBe(200);
    const agents = [...res.body.agents].sort((a, b) => a.id.localeCompare(b.id));
    const ids = new Map(first.users.map((u) => [u.platform_id, u.id]));
    expect(agents).toEqual([
      {
        id: "demo-agent-aisyah",
        name: "Aisyah Rahman",
        platformId: "demo-agent-aisyah",
        numericId: ids.get("demo-agent-aisyah"),
        accessLevels: ["sales"],
      },
      {
        id: "demo-agent-ben",
        name: "Benjamin Tan",
        platformId: "demo-agent-ben",
        numericId: ids.get("demo-agent-ben"),
        accessLevels: ["sales", "manager"],
      },
      {
        id: "demo-agent-kavitha",
        name: "Kavitha Nair",
        platformId: "demo-agent-kavitha",
        numericId: ids.get("demo-agent-kavitha"),
        accessLevels: ["sales"],
      },
    ]);
  });

  it("names sources through the service's own accounts: configured sources keep their id and type, new ones get theirs", async () => {
    const sources = await sourcesByName();
    expect([...sources.keys()].sort()).toEqual(
      ["Facebook Ads", "Google Ads", "Instagram Ads", "Old Newspaper Ad", "TikTok Ads", "Website Form"].sort(),
    );
    expect(sources.get("Instagram Ads")!.type).toBe("ads");
    expect(sources.get("Old Newspaper Ad")!.type).toBe("other");
    const created = await post(
      validLead({
        leadName: "After Seed",
        referrer: "old newspaper ad",
      }),
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body.lead.referrer.customerId).toBe(sources.get("Old Newspaper Ad")!.id);
    // The sequence was moved past the given ids: the API's next record does not collide.
    expect(created.body.lead.referralId).toBeGreaterThan(1010);
  });

  it("serves the legacy source records from GET /api/leads, person referrals left out", async () => {
    const { leads } = await listLeads("?limit=500");
    const legacy = leads.filter((l) => l.referralId <= 1010);
    expect(legacy.map((l) => l.referralId)).toEqual([1008, 1007, 1006, 1005, 1004, 1003, 1002, 1001]);
    for (const lead of legacy) {
      expect(keysOf(lead)).toEqual(LISTED_LEAD_KEYS);
      if (lead.createdAt !== null) expect(lead.createdAt).toMatch(ISO_MS);
    }
    const byId = new Map(legacy.map((l) => [l.referralId, l]));
    expect(byId.get(1004)).toEqual({
      referralId: 1004,
      leadCustomerId: null,
      leadName: "Tan Boon Hock",
      leadMobileNumber: null,
      referrer: { customerId: expect.stringMatching(/^src_/), name: "Old Newspaper Ad", type: "source" },
      assignedAgentId: null,
      status: "Closed-Legacy",
      // A legacy record without any optional field lists each as "" (lib/leads/fields.ts).
      ...Object.fromEntries(OPTIONAL_FIELD_NAMES.map((name) => [name, ""])),
      createdAt: null,
    });
    expect(byId.get(1002)).toMatchObject({
      assignedAgentId: "demo-agent-aisyah",
      createdAt: "2021-06-02T01:30:00.000Z",
      status: "Contacted",
    });
    expect(byId.get(1005)).toMatchObject({
      leadCustomerId: "cus_demo_person_03",
      assignedAgentId: null,
      status: "Successful",
    });
    expect(byId.get(1008)!.status).toBe("follow up (old CRM)");
  });

  it("stays idempotent after the API has written leads, and never moves the sequence back", async () => {
    const before = await snapshot();
    await seed(db.url, demo);
    expect(await snapshot()).toEqual(before);
    const created = await post(validLead({ leadName: "After Reseed" }));
    expect(created.status, created.text).toBe(201);
    expect(created.body.lead.referralId).toBe(Math.max(...before.referrals.map((r) => r.id)) + 1);
  });

  it("updates records in place when the fixture changes, matched by platform id, name and id", async () => {
    const changed = structuredClone(demo);
    changed.users[0].name = "Aisyah binti Rahman";
    changed.users[5].accessLevels = ["sales"];
    changed.persons[0].city = "Petaling Jaya";
    changed.referrals[0].status = "Reopened";
    const counts = await rowCounts(db.sql);
    await seed(db.url, changed);
    expect(await rowCounts(db.sql)).toEqual(counts);
    const user = await db.sql.query(`SELECT name FROM users WHERE platform_id = 'demo-agent-aisyah'`);
    expect(user.rows).toEqual([{ name: "Aisyah binti Rahman" }]);
    const grace = await db.sql.query(`SELECT access_levels FROM users WHERE name = 'Grace Wong'`);
    expect(grace.rows).toEqual([{ access_levels: ["sales"] }]);
    const person = await db.sql.query(`SELECT city FROM customers WHERE id = 'cus_demo_person_01'`);
    expect(person.rows).toEqual([{ city: "Petaling Jaya" }]);
    const record = await db.sql.query(`SELECT status FROM referrals WHERE id = 1001`);
    expect(record.rows).toEqual([{ status: "Reopened" }]);
    await seed(db.url, demo);
  });

  it("refuses to overwrite a lead the API created, and changes nothing then", async () => {
    const created = await post(validLead({ leadName: "Api Lead", referrer: "Google Ads" }));
    expect(created.status).toBe(201);
    const clash = structuredClone(demo);
    clash.users.push({ name: "New User", platformId: "demo-new", accessLevels: ["sales"] });
    clash.referrals.push({ ...demo.referrals[0], id: created.body.lead.referralId });
    const before = await snapshot();
    await expect(seed(db.url, clash)).rejects.toThrow(/created through the API/);
    expect(await snapshot()).toEqual(before);
  });
});

describe("the fixture format", () => {
  it.each([
    ["a repeated referral id", { referrals: [demo_referral(1), demo_referral(1)] }],
    [
      "a repeated platform id",
      {
        users: [
          { name: "A", platformId: "p" },
          { name: "B", platformId: "p" },
        ],
      },
    ],
    ["a repeated name without platform id", { users: [{ name: "A" }, { name: "A" }] }],
    ["a person with a source id", { persons: [{ id: "src_x", name: "P" }] }],
    ["an unknown property", { users: [{ name: "A", role: "sales" }] }],
    ["a record without status", { referrals: [{ id: 1, referrer: "Facebook Ads", leadName: "X" }] }],
  ])("rejects %s", (_, fixture) => {
    expect(fixtureSchema.safeParse(fixture).success).toBe(false);
  });

  function demo_referral(id: number) {
    return { id, referrer: "Facebook Ads", leadName: "X", status: "Closed-Legacy" };
  }
});

describe("on the legacy layout (users without access_levels)", () => {
  it("loads the users without access levels, idempotently", async () => {
    const legacy = await createTestDatabase({ use: false });
    try {
      await legacy.sql.query(`ALTER TABLE users DROP COLUMN access_levels`);
      await seed(legacy.url, demo);
      const once = await snapshot(legacy.sql);
      await seed(legacy.url, demo);
      expect(await snapshot(legacy.sql)).toEqual(once);
      expect(once.users.map((u) => u.name).sort()).toEqual(demo.users.map((u) => u.name).sort());
      expect(once.referrals).toHaveLength(10);
    } finally {
      await legacy.sql.end();
    }
  });
});

describe("npm run db:seed", () => {
  it(
    "seeds the database at DATABASE_URL from the command line, twice to the same rows",
    { timeout: 120_000 },
    async () => {
      const target = await createTestDatabase({ use: false });
      try {
        const run = () =>
          promisify(execFile)("npm", ["run", "--silent", "db:seed", "--", DEMO], {
            env: { ...process.env, DATABASE_URL: target.url },
          });
        const { stdout } = await run();
        expect(stdout).toContain("Seeded 6 users, 3 persons, 6 sources and 10 referral records");
        expect(stdout).not.toContain(target.url);
        const once = await snapshot(target.sql);
        await run();
        expect(await snapshot(target.sql)).toEqual(once);
        expect(once.referrals).toHaveLength(10);
      } finally {
        await target.sql.end();
      }
    },
  );
});
