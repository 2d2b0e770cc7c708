import { describe, expect, it } from "vitest";
import { creationConnections } from "@/lib/db/creation-budget";
import { DEFAULT_POOL_SIZE } from "@/lib/db/connect";
import { call, post, type ApiResponse } from "../helpers/api";
import { expectError } from "../helpers/expect-api";
import { db, setUpCreateLead } from "../helpers/create-lead-fixture";
import { validLead } from "../helpers/lead";

setUpCreateLead();

/** More POSTs than the creation connections and their line (four per connection) hold. */
const HELD = creationConnections(DEFAULT_POOL_SIZE) * 5 + 20;

/** The leads stored under `leadName`, by referral id. */
async function storedIds(leadName: string): Promise<number[]> {
  const { rows } = await db.sql.query<{ id: number }>(`SELECT id FROM referrals WHERE lead_name = $1 ORDER BY id`, [
    leadName,
  ]);
  return rows.map((row) => row.id);
}

describe('429 CREATION_BUSY (docs/decisions.md, "Creation sheds load")', () => {
  it("refuses a POST at once with Retry-After while every creation connection and its line are taken, storing nothing for it", async () => {
    // Creations held on a lock of the audit table take every creation connection and fill the line behind them.
    const lock = await db.sql.connect();
    let held: Promise<ApiResponse>[] = [];
    try {
      await lock.query("BEGIN; LOCK TABLE audit_entries IN ACCESS EXCLUSIVE MODE");
      held = Array.from({ length: HELD }, () => post(validLead({ leadName: "Held Lead" })));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const refused = await post(validLead({ leadName: "Refused Lead" }));
      expectError(refused, 429, "CREATION_BUSY");
      expect(refused.headers.get("retry-after")).toBe("1");
      // Refused before its body is read: a body that is not even JSON gets the same answer.
      expectError(await post("{not json"), 429, "CREATION_BUSY");
      // The key is still checked first, and reads keep connections of their own.
      expectError(await post(validLead(), { key: "wrong-key-0123456789-0123456789-01" }), 401, "UNAUTHORIZED");
      expect((await call("GET", "/api/leads/sources")).status).toBe(200);
    } finally {
      await lock.query("COMMIT");
      lock.release();
    }
    const answers = await Promise.all(held);
    const created = answers.filter((a) => a.status === 201).map((a) => a.body.lead.referralId as number);
    for (const answer of answers.filter((a) => a.status !== 201)) expectError(answer, 429, "CREATION_BUSY");
    expect(created.length).toBeGreaterThanOrEqual(creationConnections(DEFAULT_POOL_SIZE));
    expect(await storedIds("Held Lead")).toEqual(created.sort((a, b) => a - b));
    expect(await storedIds("Refused Lead")).toEqual([]);
  });

  it("admits creations again once the connections free", async () => {
    const res = await post(validLead({ leadName: "After Busy Lead" }));
    expect(res.status, res.text).toBe(201);
    expect(await storedIds("After Busy Lead")).toEqual([res.body.lead.referralId]);
  });
});
