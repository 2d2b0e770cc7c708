import { ApiError } from "@/lib/api/errors";
import type { Db } from "@/lib/db/client";
import { layoutOf } from "@/lib/db/layout";
import type { Prisma } from "@/lib/generated/prisma/client";
import { resolveAgent } from "./agents";
import { newCustomerId } from "./ids";
import { resolveReferrer, type ResolvedReferrer } from "./referrer";
import type { Agent, CreatedLead, CreateLeadInput } from "./schemas";
import { isUniqueViolation, newSourceData } from "./sources";

/**
 * POST /api/leads after validation: resolve the referrer (422 INVALID_REFERRER),
 * the agent (422 INVALID_AGENT), check assignment storage (503), then write the
 * new source account if any, the lead customer, the workflow record and its audit
 * entry in one nested create, which Prisma runs as one transaction. Not
 * idempotent: every call creates a new lead customer and record.
 */
export async function createLead(db: Db, input: CreateLeadInput): Promise<CreatedLead> {
  const referrer = await resolveReferrer(db, input.referrer);
  const agent = input.assignedAgentId === undefined ? null : await resolveAgent(db, input.assignedAgentId);
  if (agent && !(await layoutOf(db)).assignment) {
    throw new ApiError("ASSIGNMENT_NOT_CONFIGURED", "Lead assignment is not enabled in this host database");
  }
  try {
    return await insertLead(db, input, referrer, agent);
  } catch (error) {
    // A concurrent request created this new source first (its name key is taken): use that account.
    if (!("newSourceName" in referrer) || !isUniqueViolation(error)) throw error;
    return insertLead(db, input, await resolveReferrer(db, input.referrer), agent);
  }
}

async function insertLead(
  db: Db,
  input: CreateLeadInput,
  referrer: ResolvedReferrer,
  agent: Agent | null,
): Promise<CreatedLead> {
  const lead = {
    name: input.leadName,
    mobileNumber: input.leadMobileNumber,
    state: input.leadState ?? "",
    city: input.leadCity ?? "",
    address: input.leadAddress ?? "",
  };
  const status = agent ? "Assigned" : "Pending";
  const data: Prisma.ReferralCreateInput = {
    leadName: lead.name,
    mobileNumber: lead.mobileNumber,
    status,
    state: lead.state,
    city: lead.city,
    address: lead.address,
    relationship: input.relationship ?? "Other",
    projectType: input.projectType ?? "OTHERS",
    remark: input.remark ?? "",
    referrer:
      "existing" in referrer
        ? { connect: { id: referrer.existing.customerId } }
        : { create: newSourceData(referrer.newSourceName, "other") },
    leadCustomer: { create: { id: newCustomerId("person"), kind: "person", ...lead } },
    assignedAgent: agent ? { connect: { id: agent.numericId } } : undefined,
    auditEntries: { create: { action: "lead.created", actor: "lead-intake-api" } },
  };
  const record = await db.referral.create({
    data,
    select: { id: true, leadCustomerId: true, referrer: { select: { id: true, name: true } } },
  });
  return {
    referralId: record.id,
    leadCustomerId: record.leadCustomerId as string,
    leadName: lead.name,
    leadMobileNumber: lead.mobileNumber,
    referrer:
      "existing" in referrer
        ? referrer.existing
        : { customerId: record.referrer.id, name: record.referrer.name, type: "source" },
    assignedAgentId: agent ? agent.platformId : null,
    status,
  };
}
