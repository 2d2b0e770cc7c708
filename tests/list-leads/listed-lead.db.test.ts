import { describe, expect, it } from "vitest";
import { OPTIONAL_FIELDS } from "../helpers/oracle";
import { ISO_MS, keysOf, LISTED_LEAD_KEYS, listLeads } from "../helpers/read-fixtures";
import { db, ids, sources, created, arrangeListedLeads } from "../helpers/listed-leads";
import { EVERY_OPTIONAL_FIELD } from "../helpers/lead";

arrangeListedLeads();

describe("the listed lead", () => {
  it("carries exactly the documented fields, of the documented types, on every lead", async () => {
    const { leads } = await listLeads("?limit=500");
    expect(leads.length).toBeGreaterThan(0);
    for (const lead of leads) {
      expect(keysOf(lead)).toEqual(LISTED_LEAD_KEYS);
      expect(keysOf(lead.referrer)).toEqual(["customerId", "name", "type"]);
      expect(lead.referrer.type).toBe("source");
      expect(Number.isInteger(lead.referralId)).toBe(true);
      for (const field of ["leadName", "status", ...OPTIONAL_FIELDS.filter((f) => f !== "assignedAgentId")]) {
        expect(typeof lead[field], field).toBe("string");
      }
      for (const field of ["leadCustomerId", "leadMobileNumber", "assignedAgentId"]) {
        expect(lead[field] === null || typeof lead[field] === "string", field).toBe(true);
      }
      expect(lead.createdAt).toMatch(ISO_MS);
    }
  });

  it("lists a lead with every field as it was created, assigned to the agent's platform id", async () => {
    const lead = created.full;
    const { leads } = await listLeads(`?referrer=Facebook%20Ads&offset=${ids["Facebook Ads"].length - 1}`);
    expect(leads).toEqual([
      {
        referralId: lead.referralId,
        leadCustomerId: lead.leadCustomerId,
        leadName: "Nur Aisyah",
        leadMobileNumber: "60123456789",
        referrer: { customerId: sources.get("Facebook Ads")!.id, name: "Facebook Ads", type: "source" },
        assignedAgentId: "plat-aisyah",
        status: "Assigned",
        ...EVERY_OPTIONAL_FIELD,
        createdAt: expect.stringMatching(ISO_MS),
      },
    ]);
    const { rows } = await db.sql.query<{ created_at: Date }>(`SELECT created_at FROM referrals WHERE id = $1`, [
      lead.referralId,
    ]);
    expect(leads[0].createdAt).toBe(rows[0].created_at.toISOString());
    expect(Math.abs(Date.parse(leads[0].createdAt) - Date.now())).toBeLessThan(10 * 60_000);
  });

  it("lists a minimal lead unassigned and Pending, with the creation defaults", async () => {
    const { leads } = await listLeads("?referrer=Roadshow%20KL");
    expect(leads).toEqual([
      {
        referralId: created.roadshow.referralId,
        leadCustomerId: created.roadshow.leadCustomerId,
        leadName: "Roadshow Lead",
        leadMobileNumber: "60123456789",
        referrer: { customerId: created.roadshow.referrer.customerId, name: "Roadshow KL", type: "source" },
        assignedAgentId: null,
        status: "Pending",
        leadState: "",
        leadCity: "",
        leadAddress: "",
        relationship: "Other",
        projectType: "OTHERS",
        remark: "",
        createdAt: expect.stringMatching(ISO_MS),
      },
    ]);
  });

  it("agrees with the POST response of every source lead created through the API", async () => {
    const { leads } = await listLeads("?limit=500");
    const listed = new Map(leads.map((l) => [l.referralId, l]));
    for (const label of ["full", "premium", "google", "roadshow", "promo"]) {
      const lead = created[label];
      const { referralId, leadCustomerId, leadName, leadMobileNumber, referrer, assignedAgentId, status } = listed.get(
        lead.referralId,
      );
      expect({ referralId, leadCustomerId, leadName, leadMobileNumber, referrer, assignedAgentId, status }).toEqual(
        lead,
      );
    }
    expect(listed.has(created.person.referralId)).toBe(false);
  });
});
