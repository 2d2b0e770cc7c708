import type { InsertedLeadRow, LeadPageRow, NewLeadRow } from "@/lib/db/store/leads";
import { OPTIONAL_FIELD_NAMES, OPTIONAL_LEAD_FIELDS, optionalFieldsOf } from "@/lib/leads/fields";
import type { Agent, CreatedLead, CreateLeadInput, ListedLead } from "@/lib/leads/schemas";

/** How a lead maps to the host's rows (a referral and the lead's customer account) and back, field by field. */

function statusOf(agent: Agent | null): CreatedLead["status"] {
  return agent ? "Assigned" : "Pending";
}

/** A new lead's rows: the required fields, then each optional field in its column (lib/leads/fields.ts). */
export function newLeadOf(input: CreateLeadInput, agent: Agent | null, leadCustomerId: string): NewLeadRow {
  const lead: NewLeadRow = {
    referral: {
      leadCustomerId,
      leadName: input.leadName,
      mobileNumber: input.leadMobileNumber,
      status: statusOf(agent),
    },
    leadCustomer: { id: leadCustomerId, name: input.leadName, mobileNumber: input.leadMobileNumber },
    agentUserId: agent ? agent.numericId : null,
  };
  const values = optionalFieldsOf(input);
  // Each optional field's column is one of the row's string columns (lib/leads/fields.ts).
  const referral: Record<string, unknown> = lead.referral;
  const leadCustomer: Record<string, unknown> = lead.leadCustomer;
  for (const name of OPTIONAL_FIELD_NAMES) {
    const field: { column: string; customerColumn?: string } = OPTIONAL_LEAD_FIELDS[name];
    referral[field.column] = values[name];
    if (field.customerColumn) leadCustomer[field.customerColumn] = values[name];
  }
  return lead;
}

/** The referral fields a listed lead shows. */
export const LISTED_FIELDS = [
  "leadCustomerId",
  "leadName",
  "mobileNumber",
  "status",
  "createdAt",
  ...OPTIONAL_FIELD_NAMES.map((name) => OPTIONAL_LEAD_FIELDS[name].column),
] as const;

export function toListedLead(row: LeadPageRow<(typeof LISTED_FIELDS)[number]>): ListedLead {
  const optional = Object.fromEntries(
    OPTIONAL_FIELD_NAMES.map((name) => [name, row[OPTIONAL_LEAD_FIELDS[name].column] ?? ""]),
  ) as Record<(typeof OPTIONAL_FIELD_NAMES)[number], string>;
  return {
    referralId: row.id,
    leadCustomerId: row.leadCustomerId,
    leadName: row.leadName,
    leadMobileNumber: row.mobileNumber,
    referrer: { customerId: row.referrerCustomerId, name: row.referrerName, type: "source" },
    assignedAgentId: row.agentPlatformId,
    status: row.status,
    ...optional,
    createdAt: row.createdAt ? row.createdAt.toISOString() : null,
  };
}

export function toCreatedLead(
  row: InsertedLeadRow,
  input: CreateLeadInput,
  agent: Agent | null,
  leadCustomerId: string,
): CreatedLead {
  return {
    referralId: row.id,
    leadCustomerId,
    leadName: input.leadName,
    leadMobileNumber: input.leadMobileNumber,
    referrer: {
      customerId: row.referrerId,
      name: row.referrerName,
      type: row.referrerKind === "person" ? "person" : "source",
    },
    assignedAgentId: agent ? agent.platformId : null,
    status: statusOf(agent),
  };
}
