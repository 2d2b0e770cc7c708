import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabaseClient, statementModeOf, type StatementMode } from "@/lib/db/connect";
import { createLead } from "@/lib/leads/create-lead";
import { listLeads } from "@/lib/leads/list-leads";
import { createLeadBody, listLeadsQuery } from "@/lib/leads/schemas";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { validLead } from "../helpers/lead";

/**
 * DATABASE_STATEMENTS: named statements stay prepared on their connection; unnamed ones
 * leave nothing there, so a transaction pooler may hand the next statement to any server
 * connection (docs/host-guide.md, "Connection poolers"). One connection per client, so
 * pg_prepared_statements shows what the service's own statements left on it.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ use: false });
});
afterAll(() => db.sql.end());

async function preparedAfterCreatingAndListing(mode: StatementMode): Promise<number> {
  const client = createDatabaseClient(db.url, 1, mode);
  try {
    await createLead(client, createLeadBody.parse(validLead({ leadName: `Mode ${mode}` })));
    await listLeads(client, listLeadsQuery.parse({ limit: "5" }));
    const [row] = await client.$queryRawUnsafe<{ n: number }[]>(
      "SELECT count(*)::int AS n FROM pg_prepared_statements",
    );
    return row.n;
  } finally {
    await client.$disconnect();
  }
}

describe("statement mode", () => {
  it("named: the creation and listing statements stay prepared on the connection", async () => {
    expect(await preparedAfterCreatingAndListing("named")).toBeGreaterThan(0);
  });

  it("unnamed: no statement stays prepared, and the lead is created and listed all the same", async () => {
    expect(await preparedAfterCreatingAndListing("unnamed")).toBe(0);
    const { rows } = await db.sql.query("SELECT 1 FROM referrals WHERE lead_name = 'Mode unnamed'");
    expect(rows.length).toBe(1);
  });

  it("reads DATABASE_STATEMENTS: unset is named; any other value stops with a sentence naming the choices", () => {
    expect(statementModeOf(undefined)).toBe("named");
    expect(statementModeOf("unnamed")).toBe("unnamed");
    expect(() => statementModeOf("prepared")).toThrow("DATABASE_STATEMENTS must be named or unnamed");
  });
});
