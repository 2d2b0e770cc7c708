import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabaseClient } from "@/lib/db/connect";
import { sourceKey } from "@/lib/leads/source-name";
import { ensureSource } from "@/lib/leads/sources/ensure-source";
import { call, post } from "../helpers/api";
import { createTestDatabase, rowCounts, sourceCount, type TestDatabase } from "../helpers/db";
import { expectError } from "../helpers/expect-api";
import { validLead } from "../helpers/lead";

/**
 * A source id cannot be shadowed by a name. An exact source id always wins (decisions.md 12),
 * and a new source name whose key equals a source id (the id in another case) is refused with 422
 * INVALID_REFERRER, changing nothing (docs/decisions.md, "A source id in another case").
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.sql.end());

const lead = (referrer: string) => validLead({ leadName: "Shadow Test", referrer });

async function listedReferrers(referrer: string): Promise<string[]> {
  const res = await call("GET", `/api/leads?referrer=${encodeURIComponent(referrer)}`);
  expect(res.status, res.text).toBe(200);
  return res.body.leads.map((l: { referrer: { customerId: string } }) => l.referrer.customerId);
}

describe("a source id in another case", () => {
  let real: { customerId: string; name: string; type: string };

  beforeAll(async () => {
    const created = await post(lead("Shadowed Partner"));
    expect(created.status, created.text).toBe(201);
    real = created.body.lead.referrer;
  });

  it("is refused as a new source name by a POST: 422 INVALID_REFERRER, nothing written", async () => {
    const before = await rowCounts(db.sql);
    for (const body of [
      lead(real.customerId.toUpperCase()),
      { ...lead(` ${real.customerId.toUpperCase()} `), assignedAgentId: 1 },
    ]) {
      const refused = await post(body);
      expectError(refused, 422, "INVALID_REFERRER");
    }
    expect(await rowCounts(db.sql)).toEqual(before);
  });

  it("is refused as a configured source name too, creating nothing", async () => {
    const before = await sourceCount(db.sql);
    const db2 = createDatabaseClient(db.url, 1);
    try {
      await expect(ensureSource(db2, real.customerId.toUpperCase(), "ads")).rejects.toMatchObject({
        reason: "INVALID_REFERRER",
      });
    } finally {
      await db2.$disconnect();
    }
    expect(await sourceCount(db.sql)).toBe(before);
  });

  it("cannot capture the real id: POST and the list filter by the id name the real source; in another case, none", async () => {
    await post(lead(real.customerId.toUpperCase()));
    const byId = await post(lead(real.customerId));
    expect(byId.status, byId.text).toBe(201);
    expect(byId.body.lead.referrer).toEqual(real);
    const referrers = await listedReferrers(real.customerId);
    expect(referrers.length).toBeGreaterThanOrEqual(2);
    expect(new Set(referrers)).toEqual(new Set([real.customerId]));
    expect(await listedReferrers(real.customerId.toUpperCase())).toEqual([]);
  });

  it("wins over a source that an older release let take the id as its name", async () => {
    // What the earlier lookup order allowed: a source named the upper-cased id, registered under the id's key.
    const victim = (await post(lead("Victim Partner"))).body.lead.referrer;
    const impostor = "src_impostor0000000000000000000000";
    await db.sql.query(`INSERT INTO customers (id, kind, name, source_type) VALUES ($1, 'source', $2, 'other')`, [
      impostor,
      victim.customerId.toUpperCase(),
    ]);
    await db.sql.query(`INSERT INTO lead_source_names (key, customer_id) VALUES ($1, $2)`, [
      sourceKey(victim.customerId),
      impostor,
    ]);

    const created = await post(lead(victim.customerId));
    expect(created.status, created.text).toBe(201);
    expect(created.body.lead.referrer.customerId).toBe(victim.customerId);
    expect(new Set(await listedReferrers(victim.customerId))).toEqual(new Set([victim.customerId]));
    // The older account keeps its own name, and its id.
    expect((await post(lead(victim.customerId.toUpperCase()))).body.lead.referrer.customerId).toBe(impostor);
    // The impostor stays reachable by its own id.
    expect((await post(lead(impostor))).body.lead.referrer.customerId).toBe(impostor);
  });
});
