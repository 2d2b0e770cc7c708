import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createDatabaseClient, type Db } from "@/lib/db/connect";
import { createLead } from "@/lib/leads/create-lead";
import { listAgents } from "@/lib/leads/agents";
import { listLeads } from "@/lib/leads/list-leads";
import { createLeadBody } from "@/lib/leads/schemas";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { validLead } from "../helpers/lead";
import { LEGACY_MAPPED_HOST, MAPPED_HOST_TABLES } from "../helpers/mapped-host";
import { migrateMappedHost } from "../helpers/mapped-host-migrations";

// The host install writes the host's resolved names over the module's file; this file's modules read these.
vi.mock("@/lib/db/host-names.json", async () => ({
  default: (await import("../helpers/mapped-host")).LEGACY_MAPPED_HOST,
}));

/**
 * A host with its own names that lacks what the names leave out: no assignment column (null) and no audit table
 * (AuditEntry null). The rendered migrations leave out the statements on the missing table, and creation writes no
 * audit row and names no assignment column.
 */
let db: TestDatabase;
let client: Db;

beforeAll(async () => {
  db = await createTestDatabase({ template: "template0", use: false });
  await db.sql.query(MAPPED_HOST_TABLES);
  await db.sql.query(`DROP TABLE "ActivityLog"; ALTER TABLE "Deal" DROP COLUMN "assignedAgentId"`);
  await db.sql.query(
    `INSERT INTO "Member" ("externalRef", "displayName", "roles") VALUES ('plat-siti', 'Siti', '{sales}')`,
  );
  await migrateMappedHost(db, LEGACY_MAPPED_HOST);
  client = createDatabaseClient(db.url, 4);
});
afterAll(async () => {
  await client?.$disconnect();
  await db?.sql.end();
});

describe("a host with its own names, without assignment storage or audit entries", () => {
  it("creates and lists a lead, and made nothing for the audit table it lacks", async () => {
    const lead = await createLead(client, createLeadBody.parse(validLead({ referrer: "Legacy Mapped" })));
    expect(lead.status).toBe("Pending");
    const { leads, pagination } = await listLeads(client, { limit: 5, offset: 0 });
    expect(pagination.total).toBe(1);
    expect(leads.map((listed) => [listed.referralId, listed.assignedAgentId])).toEqual([[lead.referralId, null]]);
    const { rows } = await db.sql.query(
      `SELECT to_regclass('"ActivityLog"') AS audit, to_regclass('audit_entries') AS own,
              to_regclass('"Deal_referrerCustomerId_id_idx"') IS NOT NULL AS indexed`,
    );
    expect(rows[0]).toEqual({ audit: null, own: null, indexed: true });
  });

  it("lists the sales member, and refuses to assign a lead to it: there is no assignment column", async () => {
    expect((await listAgents(client)).map((agent) => [agent.platformId, agent.accessLevels])).toEqual([
      ["plat-siti", ["sales"]],
    ]);
    const input = createLeadBody.parse(validLead({ referrer: "Legacy Mapped", assignedAgentId: "plat-siti" }));
    await expect(createLead(client, input)).rejects.toMatchObject({ reason: "ASSIGNMENT_NOT_CONFIGURED" });
  });
});
