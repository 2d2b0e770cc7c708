import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createDatabaseClient, type Db } from "@/lib/db/connect";
import { applyMigrations, readMigrations } from "@/lib/db/migrate";
import { createLead } from "@/lib/leads/create-lead";
import { listAgents } from "@/lib/leads/agents";
import { listLeads } from "@/lib/leads/list-leads";
import { agent, createdLead, createLeadBody, listedLead, source } from "@/lib/leads/schemas";
import { listSources } from "@/lib/leads/sources/list-sources";
import { renderMigration } from "@/scripts/host/render-migration";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { leadWithEveryField } from "../helpers/lead";
import { MAPPED_HOST, MAPPED_HOST_TABLES } from "../helpers/mapped-host";

// The host install writes the host's resolved names over the module's file; this file's modules read the mapped host's.
vi.mock("@/lib/db/host-names.json", async () => ({ default: (await import("../helpers/mapped-host")).MAPPED_HOST }));

/**
 * A host with its own names (Contact, Member, Deal, ActivityLog; a status enum; timestamps without time zone): the
 * module's migrations rendered with those names apply to its tables, and creation and the three reads answer as the
 * contract says through the map, writing only the host's tables.
 */
let db: TestDatabase;
let client: Db;
const members: Record<string, number> = {};

beforeAll(async () => {
  db = await createTestDatabase({ template: "template0", use: false });
  await db.sql.query(MAPPED_HOST_TABLES);
  // Not UTC, so a timestamp without time zone written or read in the session's zone would be hours off.
  await db.sql.query(`ALTER DATABASE "${db.name}" SET timezone TO 'Asia/Kuala_Lumpur'`);
  const { rows } = await db.sql.query<{ id: number; externalRef: string }>(`
    INSERT INTO "Member" ("externalRef", "displayName", "roles")
    VALUES ('plat-siti', 'Siti', '{sales}'), ('plat-nameless', NULL, '{sales}'), ('plat-clerk', 'Clerk', '{support}')
    RETURNING "id", "externalRef"`);
  for (const row of rows) members[row.externalRef] = row.id;
  const { default: own } = await vi.importActual<{ default: unknown }>("@/lib/db/host-names.json");
  const { parseHostNames } = await import("@/lib/db/host-names");
  const rendered = (await readMigrations())
    .filter((migration) => !migration.name.endsWith("_host_tables"))
    .map((migration) => {
      const sql = renderMigration(migration.sql, parseHostNames(own), MAPPED_HOST);
      return { ...migration, sql, checksum: createHash("sha256").update(sql).digest("hex"), earlierChecksums: [] };
    });
  await applyMigrations(db.url, rendered, 10);
  client = createDatabaseClient(db.url, 4);
});
afterAll(async () => {
  await client?.$disconnect();
  await db?.sql.end();
});

describe("a host with its own names", () => {
  it("has none of the module's host tables: the rendered migrations created none", async () => {
    const { rows } = await db.sql.query(
      `SELECT to_regclass('customers') AS c, to_regclass('users') AS u, to_regclass('referrals') AS r,
              to_regclass('audit_entries') AS a`,
    );
    expect(rows[0]).toEqual({ c: null, u: null, r: null, a: null });
  });

  it("creates a lead with a new source and an agent: the enum takes Assigned, timestamps are UTC", async () => {
    const before = Date.now();
    const input = createLeadBody.parse(leadWithEveryField({ referrer: "Mapped Ads", assignedAgentId: "plat-siti" }));
    const lead = createdLead.parse(await createLead(client, input));
    expect(lead.status).toBe("Assigned");
    expect(lead.assignedAgentId).toBe("plat-siti");
    const { rows } = await db.sql.query(
      `SELECT d."stage"::text AS stage, d."assignedAgentId", d."notes", d."createdAt" AT TIME ZONE 'UTC' AS "createdAt",
              c."fullName", c."phone", (SELECT count(*)::int FROM "ActivityLog" a WHERE a."dealId" = d."id") AS audits
       FROM "Deal" d JOIN "Contact" c ON c."id" = d."leadCustomerId" WHERE d."id" = $1`,
      [lead.referralId],
    );
    expect(rows[0]).toMatchObject({
      stage: "Assigned",
      assignedAgentId: members["plat-siti"],
      notes: input.remark,
      fullName: input.leadName,
      phone: "60123456789",
      audits: 1,
    });
    const stored = (rows[0] as { createdAt: Date }).createdAt.getTime();
    expect(stored).toBeGreaterThanOrEqual(before - 1000);
    expect(stored).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("creates an unassigned lead for the same source: the enum takes Pending", async () => {
    const lead = await createLead(client, createLeadBody.parse(leadWithEveryField({ referrer: "mapped  ads" })));
    expect(lead.status).toBe("Pending");
    const { rows } = await db.sql.query(`SELECT "stage"::text AS stage FROM "Deal" WHERE "id" = $1`, [lead.referralId]);
    expect(rows[0]).toEqual({ stage: "Pending" });
  });

  it("lists the source's leads newest first, with the counts the rendered triggers keep", async () => {
    const all = await listLeads(client, { limit: 10, offset: 0 });
    expect(all.pagination).toEqual({ total: 2, limit: 10, offset: 0, hasMore: false });
    expect(all.leads.map((lead) => listedLead.parse(lead).status)).toEqual(["Pending", "Assigned"]);
    expect(all.leads[1]).toMatchObject({ assignedAgentId: "plat-siti", referrer: { name: "Mapped Ads" } });
    const createdAt = Date.parse(all.leads[1]!.createdAt ?? "");
    expect(Math.abs(createdAt - Date.now())).toBeLessThan(60_000);
    const one = await listLeads(client, { referrer: "MAPPED ADS", limit: 1, offset: 1 });
    expect(one.pagination).toEqual({ total: 2, limit: 1, offset: 1, hasMore: false });
    expect(one.leads.map((lead) => lead.referralId)).toEqual([all.leads[1]!.referralId]);
  });

  it("lists the new source and the sales members, a member without a name as an empty string", async () => {
    const { sources } = await listSources(client);
    expect(sources.map((s) => source.parse(s))).toEqual([
      expect.objectContaining({ name: "Mapped Ads", type: "other" }),
    ]);
    const agents = (await listAgents(client)).map((a) => agent.parse(a));
    expect(agents.map((a) => [a.platformId, a.name, a.accessLevels])).toEqual([
      ["plat-nameless", "", ["sales"]],
      ["plat-siti", "Siti", ["sales"]],
    ]);
  });
});
