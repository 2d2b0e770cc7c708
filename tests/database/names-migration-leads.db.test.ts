import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createDatabaseClient, type Db } from "@/lib/db/connect";
import { createLead } from "@/lib/leads/create-lead";
import { listLeads } from "@/lib/leads/list-leads";
import { createLeadBody } from "@/lib/leads/schemas";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { leadWithEveryField } from "../helpers/lead";
import { moveMappedHost } from "../helpers/mapped-host-migrations";

// The module's statements in this process are built from the host's names after the change.
vi.mock("@/lib/db/host-names.json", async () => ({
  default: (await import("../helpers/mapped-host")).RENAMED_MAPPED_HOST,
}));

/**
 * A host whose names changed after the module's migrations ran, and that took the names migration: creation and
 * listing work through the new names, the counts kept by the moved triggers.
 */
let db: TestDatabase;
let client: Db;

beforeAll(async () => {
  db = await createTestDatabase({ template: "template0", use: false });
  await moveMappedHost(db);
  client = createDatabaseClient(db.url, 4);
}, 120_000);

afterAll(async () => {
  await client?.$disconnect();
  await db?.sql.end();
});

describe("a host whose names changed after the module's migrations ran", () => {
  it("creates and lists leads through the new names", async () => {
    const before = await listLeads(client, { limit: 1, offset: 0 });
    const lead = await createLead(client, createLeadBody.parse(leadWithEveryField({ referrer: "Renamed Ads" })));
    const { rows } = await db.sql.query(
      `SELECT c."contactName" FROM "Opportunity" o JOIN "Contact" c ON c."id" = o."leadCustomerId" WHERE o."id" = $1`,
      [lead.referralId],
    );
    expect(rows).toEqual([{ contactName: lead.leadName }]);
    const after = await listLeads(client, { limit: 1, offset: 0 });
    expect(after.pagination.total).toBe(before.pagination.total + 1);
    const bySource = await listLeads(client, { referrer: "renamed ads", limit: 10, offset: 0 });
    expect(bySource.pagination.total).toBe(1);
  });
});
