import { ApiError } from "@/lib/api/errors";
import type { Db } from "@/lib/db/client";
import { layoutOf } from "@/lib/db/layout";
import type { Prisma } from "@/lib/generated/prisma/client";
import { resolveAgent } from "./agents";
import { newCustomerId } from "./ids";
import { resolveReferrer, type ResolvedReferrer } from "./referrer";
import type { Agent, CreatedLead, CreateLeadInput, Referrer } from "./schemas";
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
  // Ids are made here, so the insert needs to return nothing but the record id.
  const leadCustomerId = newCustomerId("person");
  const introducer = referrerLink(referrer);
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
    referrer: introducer.link,
    leadCustomer: { create: { id: leadCustomerId, kind: "person", ...lead } },
    assignedAgent: agent ? { connect: { id: agent.numericId } } : undefined,
    auditEntries: { create: { action: "lead.created", actor: "lead-intake-api" } },
  };
  const record = await db.referral.create({ data, select: { id: true } });
  return {
    referralId: record.id,
    leadCustomerId,
    leadName: lead.name,
    leadMobileNumber: lead.mobileNumber,
    referrer: introducer.referrer,
    assignedAgentId: agent ? agent.platformId : null,
    status,
  };
}

/** The referral's link to its Introducer: the existing account, or a new source account created with it. */
function referrerLink(referrer: ResolvedReferrer): {
  link: Prisma.ReferralCreateInput["referrer"];
  referrer: Referrer;
} {
  if ("existing" in referrer) return { link: { connect: { id: referrer.existing.customerId } }, referrer: referrer.existing };
  const source = newSourceData(referrer.newSourceName, "other");
  return { link: { create: source }, referrer: { customerId: source.id, name: source.name, type: "source" } };
}
