import { describe, expect, it } from "vitest";
import { sourceKey } from "@/lib/leads/source-name";
import { call, post } from "../helpers/api";
import { rowCounts, sourceCount } from "../helpers/db";
import { expectError, expectNoWrites } from "../helpers/expect-api";
import {
  db,
  configured,
  personId,
  companyId,
  MIN,
  created,
  referralRow,
  sourcesNamed,
  setUpCreateLead,
} from "../helpers/create-lead-fixture";

setUpCreateLead();

describe("referrer as a string (rules 3 and 5)", () => {
  it.each([
    "Facebook Ads",
    "facebook ads",
    "  FACEBOOK    ADS  ",
    "fAcEbOoK\tAds",
    "TikTok Ads",
    "tiktok  ads",
    "website form",
  ])(
    "resolves the configured source %j by name, case and spacing ignored, creating nothing but the lead",
    async (name) => {
      const sources = await sourceCount(db.sql);
      const lead = created(await post({ ...MIN, referrer: name }));
      const expected = Object.keys(configured).find((n) => sourceKey(n) === sourceKey(name))!;
      expect(lead.referrer).toStrictEqual({ customerId: configured[expected], name: expected, type: "source" });
      expect(await sourceCount(db.sql)).toBe(sources);
      expect((await referralRow(lead.referralId)).referrer_customer_id).toBe(configured[expected]);
    },
  );

  it("resolves a source id returned by GET /api/leads/sources", async () => {
    const listed = await call("GET", "/api/leads/sources");
    const website = listed.body.sources.find((s: { name: string }) => s.name === "Website Form");
    const sources = await sourceCount(db.sql);
    for (const referrer of [website.id, `  ${website.id}  `]) {
      const lead = created(await post({ ...MIN, referrer }));
      expect(lead.referrer).toStrictEqual({ customerId: website.id, name: "Website Form", type: "source" });
    }
    expect(await sourceCount(db.sql)).toBe(sources);
  });

  it("creates a new source (type other) on the first POST and reuses it for case and spacing variants", async () => {
    const before = await rowCounts(db.sql);
    const first = created(await post({ ...MIN, referrer: "  Kuala Lumpur   Home Expo 2026 " }));
    expect(first.referrer.type).toBe("source");
    expect(first.referrer.name).toBe("Kuala Lumpur Home Expo 2026");
    expect(first.referrer.customerId).toMatch(/^src_/);
    expect(Object.values(configured)).not.toContain(first.referrer.customerId);
    expect(await rowCounts(db.sql)).toEqual({
      ...before,
      customers: before.customers + 2, // the source and the lead
      referrals: before.referrals + 1,
      audit_entries: before.audit_entries + 1,
      lead_source_names: before.lead_source_names + 1,
    });
    expect(await sourcesNamed("Kuala Lumpur Home Expo 2026")).toEqual([
      {
        id: first.referrer.customerId,
        name: "Kuala Lumpur Home Expo 2026",
        source_type: "other",
        key: "kuala lumpur home expo 2026",
      },
    ]);

    for (const variant of [
      "kuala lumpur home expo 2026",
      "KUALA LUMPUR HOME EXPO 2026",
      " Kuala  Lumpur Home  Expo 2026",
    ]) {
      const lead = created(await post({ ...MIN, referrer: variant }));
      expect(lead.referrer).toStrictEqual(first.referrer);
      expect((await referralRow(lead.referralId)).referrer_customer_id).toBe(first.referrer.customerId);
    }
    expect(await sourcesNamed("Kuala Lumpur Home Expo 2026")).toHaveLength(1);

    // The new source is listed like any other, with type other.
    const listed = await call("GET", "/api/leads/sources");
    expect(listed.body.sources).toContainEqual({
      id: first.referrer.customerId,
      name: "Kuala Lumpur Home Expo 2026",
      type: "other",
    });
    expect(listed.body.ads.map((s: { id: string }) => s.id)).not.toContain(first.referrer.customerId);
  });

  it("creates the new source only with a lead: a rejected POST naming it leaves no account", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(
        await post({ ...MIN, referrer: "Ipoh Roadshow", assignedAgentId: "plat_nobody" }),
        422,
        "INVALID_AGENT",
      );
      expectError(await post({ ...MIN, referrer: "Ipoh Roadshow", leadMobileNumber: "123" }), 400, "INVALID_INPUT");
    });
    expect(await sourcesNamed("Ipoh Roadshow")).toEqual([]);
  });

  it("takes an unknown src_ string as the name of a new source, never as an invented id (rule 5)", async () => {
    const invented = "src_0123456789abcdef01234567";
    const lead = created(await post({ ...MIN, referrer: invented }));
    expect(lead.referrer.type).toBe("source");
    expect(lead.referrer.name).toBe(invented);
    expect(lead.referrer.customerId).not.toBe(invented);
    expect(lead.referrer.customerId).toMatch(/^src_/);
    const { rows } = await db.sql.query(`SELECT id FROM customers WHERE id = $1`, [invented]);
    expect(rows).toEqual([]);
    expect(await sourcesNamed(invented)).toHaveLength(1);
  });

  it("never resolves a bare string to a person, neither by the person's name nor by id (rule 5)", async () => {
    for (const referrer of ["Siti Aminah", personId]) {
      const sources = await sourceCount(db.sql);
      const lead = created(await post({ ...MIN, referrer }));
      expect(lead.referrer.type).toBe("source");
      expect(lead.referrer.name).toBe(referrer);
      expect(lead.referrer.customerId).not.toBe(personId);
      expect(lead.referrer.customerId).toMatch(/^src_/);
      expect(await sourceCount(db.sql)).toBe(sources + 1);
      expect((await referralRow(lead.referralId)).referrer_customer_id).toBe(lead.referrer.customerId);
    }
  });

  it("never resolves a bare string to a lead customer created earlier", async () => {
    const earlier = created(await post({ ...MIN, leadName: "Earlier Lead" }));
    const lead = created(await post({ ...MIN, referrer: earlier.leadCustomerId }));
    expect(lead.referrer.type).toBe("source");
    expect(lead.referrer.customerId).not.toBe(earlier.leadCustomerId);
    expect(lead.referrer.name).toBe(earlier.leadCustomerId);
  });
});

describe("referrer as an object {customerId} (rule 4)", () => {
  it("names an existing person: referrer.type is person", async () => {
    const before = await rowCounts(db.sql);
    const lead = created(await post({ ...MIN, referrer: { customerId: personId } }));
    expect(lead.referrer).toStrictEqual({ customerId: personId, name: "Siti Aminah", type: "person" });
    expect((await referralRow(lead.referralId)).referrer_customer_id).toBe(personId);
    // Only the lead customer is new: the object form creates no account.
    expect(await rowCounts(db.sql)).toEqual({
      ...before,
      customers: before.customers + 1,
      referrals: before.referrals + 1,
      audit_entries: before.audit_entries + 1,
    });
  });

  it("names an existing source: referrer.type is source", async () => {
    const sources = await sourceCount(db.sql);
    const lead = created(await post({ ...MIN, referrer: { customerId: `  ${configured["TikTok Ads"]} ` } }));
    expect(lead.referrer).toStrictEqual({ customerId: configured["TikTok Ads"], name: "TikTok Ads", type: "source" });
    expect(await sourceCount(db.sql)).toBe(sources);
  });

  it("names a lead customer created earlier as a person", async () => {
    const earlier = created(await post({ ...MIN, leadName: "Referring Lead" }));
    const lead = created(await post({ ...MIN, referrer: { customerId: earlier.leadCustomerId } }));
    expect(lead.referrer).toStrictEqual({ customerId: earlier.leadCustomerId, name: "Referring Lead", type: "person" });
  });

  it.each([
    ["an unknown id", "cus_does_not_exist"],
    ["an unknown src_ id", "src_0000000000000000"],
    ["a source name instead of an id", "Facebook Ads"],
    ["a person's name instead of an id", "Siti Aminah"],
  ])("rejects %s with 422 INVALID_REFERRER and creates nothing", async (_, customerId) => {
    const res = await expectNoWrites(db.sql, () => post({ ...MIN, referrer: { customerId } }));
    expectError(res, 422, "INVALID_REFERRER");
  });

  it("rejects an account that is neither a person nor a source with 422 INVALID_REFERRER", async () => {
    const res = await expectNoWrites(db.sql, () => post({ ...MIN, referrer: { customerId: companyId } }));
    expectError(res, 422, "INVALID_REFERRER");
  });
});
