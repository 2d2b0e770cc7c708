import { describe, expect, it, vi } from "vitest";
import { createLead } from "@/lib/leads/create-lead";
import { createLeadBody } from "@/lib/leads/schemas";
import { createDatabaseClient } from "@/lib/db/connect";
import { post } from "../helpers/api";
import { rowCounts } from "../helpers/db";
import { expectError } from "../helpers/expect-api";
import { db, personId, MIN, created, sourcesNamed, setUpCreateLead } from "../helpers/create-lead-fixture";

setUpCreateLead();

describe("atomic creation", () => {
  it("saves nothing when the audit entry fails, and answers 500 INTERNAL_ERROR without internals", async () => {
    // The route logs the failure; keep the test output clean.
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    await db.sql.query(`
      CREATE FUNCTION test_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit_entries insert refused by test trigger'; END $$;
      CREATE TRIGGER test_refuse_audit BEFORE INSERT ON audit_entries FOR EACH ROW EXECUTE FUNCTION test_refuse_audit();`);
    try {
      const before = await rowCounts(db.sql);
      for (const body of [
        { ...MIN, leadName: "Atomic Lead", referrer: "Melaka Atomic Fair", assignedAgentId: "plat_sales_1" },
        { ...MIN, leadName: "Atomic Lead", referrer: { customerId: personId } },
      ]) {
        const res = await post(body);
        expectError(res, 500, "INTERNAL_ERROR");
        expect(res.text).not.toMatch(
          /audit|trigger|insert|select|sql|prisma|postgres|stack|\bat\s|Atomic|60123456789/i,
        );
      }
      expect(await rowCounts(db.sql)).toEqual(before);
      expect(await sourcesNamed("Melaka Atomic Fair")).toEqual([]);
      const { rows } = await db.sql.query(`SELECT count(*)::int AS n FROM customers WHERE name = 'Atomic Lead'`);
      expect(rows[0].n).toBe(0);
    } finally {
      await db.sql.query(`DROP TRIGGER test_refuse_audit ON audit_entries; DROP FUNCTION test_refuse_audit();`);
      errors.mockRestore();
    }
    // The same request succeeds once the audit entry can be written.
    const lead = created(await post({ ...MIN, leadName: "Atomic Lead", referrer: "Melaka Atomic Fair" }));
    expect(lead.referrer.name).toBe("Melaka Atomic Fair");
  });
});

/** A failed creation, short enough to read in an assertion message. */
function describeFailure(error: unknown): string {
  const { name, code, message, meta } = error as { name?: string; code?: string; message?: string; meta?: unknown };
  return `${name} ${code}: ${message?.split("\n").pop()} ${JSON.stringify(meta)}`;
}

describe("concurrency", () => {
  it("40 concurrent creations naming one new source through two independent clients make one source and 40 leads", async () => {
    const clients = [0, 1].map(() => createDatabaseClient(db.url));
    try {
      const variants = [
        "Johor Bahru Property Fair",
        "johor bahru property fair",
        "  JOHOR  BAHRU PROPERTY FAIR ",
        "Johor Bahru  Property\tFair",
      ];
      const input = (i: number) =>
        createLeadBody.parse({
          leadName: `Concurrent ${i}`,
          leadMobileNumber: `01234567${String(i).padStart(2, "0")}`,
          referrer: variants[i % variants.length],
        });
      const before = await rowCounts(db.sql);
      // Half through each client, as two server processes on one database would.
      const settled = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) => createLead(clients[i % 2], input(i))),
      );

      const failures = settled.flatMap((r) => (r.status === "rejected" ? [describeFailure(r.reason)] : []));
      expect(failures).toEqual([]);
      const results = settled.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof createLead>>>).value);

      const sources = await sourcesNamed("Johor Bahru Property Fair");
      expect(sources).toHaveLength(1);
      expect(sources[0]).toMatchObject({ source_type: "other", key: "johor bahru property fair" });
      expect(new Set(results.map((r) => r.referrer.customerId))).toEqual(new Set([sources[0].id]));
      expect(new Set(results.map((r) => r.referralId)).size).toBe(40);
      expect(new Set(results.map((r) => r.leadCustomerId)).size).toBe(40);
      expect(await rowCounts(db.sql)).toEqual({
        ...before,
        customers: before.customers + 41,
        referrals: before.referrals + 40,
        audit_entries: before.audit_entries + 40,
        lead_source_names: before.lead_source_names + 1,
      });
      const { rows } = await db.sql.query(
        `SELECT count(*)::int AS referrals, count(DISTINCT a.id)::int AS audits
         FROM referrals r JOIN audit_entries a ON a.referral_id = r.id WHERE r.referrer_customer_id = $1`,
        [sources[0].id],
      );
      expect(rows[0]).toEqual({ referrals: 40, audits: 40 });
    } finally {
      await Promise.all(clients.map((c) => c.$disconnect()));
    }
  });
});
