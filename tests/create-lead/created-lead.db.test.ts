import { describe, expect, it } from "vitest";
import { post } from "../helpers/api";
import { rowCounts } from "../helpers/db";
import { validLead } from "../helpers/lead";
import {
  db,
  users,
  configured,
  MIN,
  created,
  referralRow,
  customerRow,
  setUpCreateLead,
} from "../helpers/create-lead-fixture";

setUpCreateLead();

describe("a created lead", () => {
  it("answers the minimum body with 201 and exactly the documented fields, unassigned and Pending (rule 1)", async () => {
    const before = await rowCounts(db.sql);
    const res = await post(MIN);
    const lead = created(res);
    expect(res.body).toStrictEqual({
      lead: {
        referralId: expect.any(Number),
        leadCustomerId: expect.any(String),
        leadName: "Ali bin Abu",
        leadMobileNumber: "60123456789",
        referrer: { customerId: configured["Facebook Ads"], name: "Facebook Ads", type: "source" },
        assignedAgentId: null,
        status: "Pending",
      },
    });
    expect(await rowCounts(db.sql)).toEqual({
      ...before,
      customers: before.customers + 1,
      referrals: before.referrals + 1,
      audit_entries: before.audit_entries + 1,
    });

    // The lead customer: a person with the canonical mobile number.
    const customer = await customerRow(lead.leadCustomerId);
    expect(customer).toMatchObject({
      kind: "person",
      name: "Ali bin Abu",
      mobile_number: "60123456789",
      state: "",
      city: "",
      address: "",
      source_type: null,
    });
    expect(lead.leadCustomerId).not.toMatch(/^src_/);

    // The workflow record with every default.
    const referral = await referralRow(lead.referralId);
    expect(referral).toMatchObject({
      referrer_customer_id: configured["Facebook Ads"],
      lead_customer_id: lead.leadCustomerId,
      lead_name: "Ali bin Abu",
      mobile_number: "60123456789",
      status: "Pending",
      state: "",
      city: "",
      address: "",
      relationship: "Other",
      project_type: "OTHERS",
      remark: "",
      assigned_agent_id: null,
      preferred_agent_id: null,
    });
    expect(referral.created_at).toBeInstanceOf(Date);

    // Exactly one audit entry, pointing at the record.
    const { rows: audit } = await db.sql.query(`SELECT referral_id FROM audit_entries WHERE referral_id = $1`, [
      lead.referralId,
    ]);
    expect(audit).toEqual([{ referral_id: lead.referralId }]);
  });

  it("stores every optional field trimmed, and answers Assigned with the agent's platform id", async () => {
    const lead = created(
      await post(
        validLead({
          leadName: "  Tan Mei Ling  ",
          leadMobileNumber: " +60 11-2345 6789 ",
          referrer: "google   ADS",
          assignedAgentId: "plat_sales_1",
          leadState: " Pulau Pinang ",
          leadCity: " George Town ",
          leadAddress: " 12 Lebuh Chulia ",
          relationship: "Business Partner",
          projectType: "SHOP-LOT (2%)",
          remark: " Prefers WhatsApp ",
        }),
      ),
    );
    expect(lead).toStrictEqual({
      referralId: lead.referralId,
      leadCustomerId: lead.leadCustomerId,
      leadName: "Tan Mei Ling",
      leadMobileNumber: "601123456789",
      referrer: { customerId: configured["Google Ads"], name: "Google Ads", type: "source" },
      assignedAgentId: "plat_sales_1",
      status: "Assigned",
    });
    expect(await customerRow(lead.leadCustomerId)).toMatchObject({
      kind: "person",
      name: "Tan Mei Ling",
      mobile_number: "601123456789",
      state: "Pulau Pinang",
      city: "George Town",
      address: "12 Lebuh Chulia",
    });
    expect(await referralRow(lead.referralId)).toMatchObject({
      referrer_customer_id: configured["Google Ads"],
      lead_name: "Tan Mei Ling",
      mobile_number: "601123456789",
      status: "Assigned",
      state: "Pulau Pinang",
      city: "George Town",
      address: "12 Lebuh Chulia",
      relationship: "Business Partner",
      project_type: "SHOP-LOT (2%)",
      remark: "Prefers WhatsApp",
      assigned_agent_id: users.sales,
      preferred_agent_id: null,
    });
  });

  it('stores blank optional text fields as "" (decisions.md 4)', async () => {
    const lead = created(await post({ ...MIN, leadState: "", leadCity: "   ", leadAddress: " \t ", remark: "" }));
    expect(await customerRow(lead.leadCustomerId)).toMatchObject({ state: "", city: "", address: "" });
    expect(await referralRow(lead.referralId)).toMatchObject({ state: "", city: "", address: "", remark: "" });
  });

  it.each([
    ["012-345 6789", "60123456789"],
    ["12 345 6789", "60123456789"],
    ["(011) 2345.6789", "601123456789"],
    ["60123456789", "60123456789"],
  ])("answers and stores the mobile %j as %s (rule 2)", async (mobile, canonical) => {
    const lead = created(await post({ ...MIN, leadMobileNumber: mobile }));
    expect(lead.leadMobileNumber).toBe(canonical);
    expect((await customerRow(lead.leadCustomerId)).mobile_number).toBe(canonical);
    expect((await referralRow(lead.referralId)).mobile_number).toBe(canonical);
  });

  it("is not idempotent: the same body twice makes two lead customers and two records (rule 8)", async () => {
    const body = { ...MIN, leadName: "Repeat Caller", leadMobileNumber: "019-888 7777" };
    const before = await rowCounts(db.sql);
    const first = created(await post(body));
    const second = created(await post(body));
    expect(second.referralId).not.toBe(first.referralId);
    expect(second.leadCustomerId).not.toBe(first.leadCustomerId);
    expect(second.referrer).toEqual(first.referrer);
    expect(await rowCounts(db.sql)).toEqual({
      ...before,
      customers: before.customers + 2,
      referrals: before.referrals + 2,
      audit_entries: before.audit_entries + 2,
    });
    const { rows } = await db.sql.query(
      `SELECT count(*)::int AS n FROM customers WHERE kind = 'person' AND mobile_number = '60198887777'`,
    );
    expect(rows[0].n).toBe(2);
  });
});
