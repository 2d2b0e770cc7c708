import { isUniqueViolation } from "@/lib/db/failures";
import { observer } from "@/lib/db/observer";
import type { Db } from "@/lib/db/prisma";
import { assignmentStored } from "@/lib/db/store/agents";
import { accountExists, insertLead, type ReferrerRow } from "@/lib/db/store/leads";
import { resolveAgent } from "@/lib/leads/agents";
import { newCustomerId } from "@/lib/leads/ids";
import { LeadRefusal } from "@/lib/leads/refusal";
import type { Agent, CreatedLead, CreateLeadInput } from "@/lib/leads/schemas";
import { newSourceRow } from "@/lib/leads/sources/ensure-source";
import { findSource, refuseIdInOtherCase, sourceLookup } from "@/lib/leads/sources/find-source";
import { newLeadOf, toCreatedLead } from "@/lib/leads/stored-lead";

/**
 * POST /api/leads after validation: the referrer (422), the agent (422) and assignment storage (503) in the spec's
 * order, then one SQL statement writes every row, so all are saved or none. Not idempotent: every call creates a lead.
 */
export async function createLead(db: Db, input: CreateLeadInput): Promise<CreatedLead> {
  const agent = input.assignedAgentId === undefined ? null : await checkAssignment(db, input, input.assignedAgentId);
  const existing = existingReferrer(input.referrer);
  const created = await createWith(db, input, existing, agent);
  if (created) return created;
  // Nothing was written: the referrer names no existing account.
  if (typeof input.referrer !== "string") throw new LeadRefusal("INVALID_REFERRER");
  if (agent === null) await refuseIdInOtherCase(db, input.referrer); // with an agent, checkAssignment did
  try {
    return saved(await createWith(db, input, { newSource: newSourceRow(input.referrer, "other") }, agent));
  } catch (error) {
    // A concurrent request created this new source first (its name key is taken): use that account.
    if (!isUniqueViolation(error)) throw error;
    return saved(await createWith(db, input, existing, agent));
  }
}

/**
 * Spec rules 3 to 5: a string names a source (by name or returned id), and when it names none it is the name of a
 * new source, never a person, so an unknown "src_…" string is just a new name; an object names an existing person or
 * source account, and when it names none the request is 422 INVALID_REFERRER.
 */
export function existingReferrer(referrer: CreateLeadInput["referrer"]): ReferrerRow {
  return typeof referrer === "string" ? { source: sourceLookup(referrer) } : { accountId: referrer.customerId };
}

/** Only an account deleted between two statements leaves nothing written here: an unexpected failure (500). */
function saved(lead: CreatedLead | null): CreatedLead {
  if (!lead) throw new Error("The referrer's account disappeared while the lead was being created");
  return lead;
}

/** The agent of a request that names one, after its referrer is known to exist (the referrer is checked first). */
async function checkAssignment(db: Db, input: CreateLeadInput, agentId: string | number): Promise<Agent> {
  if (typeof input.referrer !== "string") {
    if (!(await accountExists(db, input.referrer.customerId))) throw new LeadRefusal("INVALID_REFERRER");
  } else if (!(await findSource(db, input.referrer))) {
    await refuseIdInOtherCase(db, input.referrer);
  }
  const agent = await resolveAgent(db, agentId);
  if (!(await assignmentStored(db))) throw new LeadRefusal("ASSIGNMENT_NOT_CONFIGURED");
  return agent;
}

/** The lead written with this referrer; null when the referrer named no account and nothing was written. */
async function createWith(
  db: Db,
  input: CreateLeadInput,
  referrer: ReferrerRow,
  agent: Agent | null,
): Promise<CreatedLead | null> {
  const leadCustomerId = newCustomerId("person");
  const row = await insertLead(db, newLeadOf(input, agent, leadCustomerId), referrer);
  if (!row) return null;
  const sourceType = row.referrerKind === "person" ? "person" : row.referrerSourceType === "ads" ? "ads" : "other";
  observer()?.leadCreated(sourceType, "newSource" in referrer);
  return toCreatedLead(row, input, agent, leadCustomerId);
}
