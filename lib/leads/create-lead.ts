import { ApiError } from "@/lib/api/errors";
import type { Db } from "@/lib/db/prisma";
import { queryPrepared } from "@/lib/db/prepared";
import { layoutOf } from "@/lib/db/layout";
import { resolveAgent } from "@/lib/leads/agents";
import { newCustomerId } from "@/lib/leads/ids";
import { insertLeadStatement, toCreatedLead, type InsertedLeadRow, type LeadReferrer } from "@/lib/leads/lead-rows";
import { namedAccount } from "@/lib/leads/referrer";
import type { Agent, CreatedLead, CreateLeadInput } from "@/lib/leads/schemas";
import { findSource, isUniqueViolation, refuseIdInOtherCase } from "@/lib/leads/sources";

/**
 * POST /api/leads after validation. Checks in the spec's order: the referrer (422
 * INVALID_REFERRER, also for a new source name that is a source id in another case),
 * the agent (422 INVALID_AGENT), assignment storage (503). Then
 * the lead customer, the workflow record and its audit entry, and the new source
 * account if the referrer names one, are written in one SQL statement, so all of
 * them are saved or none. Not idempotent: every call creates a new lead.
 */
export async function createLead(db: Db, input: CreateLeadInput): Promise<CreatedLead> {
  const agent = input.assignedAgentId === undefined ? null : await checkAssignment(db, input, input.assignedAgentId);
  const existing: LeadReferrer = { existing: input.referrer };
  const created = await insertLead(db, input, existing, agent);
  if (created) return created;
  // Nothing was written: the referrer names no existing account.
  if (typeof input.referrer !== "string") throw invalidReferrer();
  if (agent === null) await refuseIdInOtherCase(db, input.referrer); // with an agent, checkAssignment did
  try {
    const newSource = { id: newCustomerId("source"), name: input.referrer, type: "other" } as const;
    return saved(await insertLead(db, input, { newSource }, agent));
  } catch (error) {
    // A concurrent request created this new source first (its name key is taken): use that account.
    if (!isUniqueViolation(error)) throw error;
    return saved(await insertLead(db, input, existing, agent));
  }
}

/** Only an account deleted between two statements leaves nothing written here: an unexpected failure (500). */
function saved(lead: CreatedLead | null): CreatedLead {
  if (!lead) throw new Error("The referrer's account disappeared while the lead was being created");
  return lead;
}

/** The agent of a request that names one, after its referrer is known to exist (the referrer is checked first). */
async function checkAssignment(db: Db, input: CreateLeadInput, agentId: string | number): Promise<Agent> {
  if (typeof input.referrer !== "string") {
    const found = await db.$queryRaw<unknown[]>(namedAccount(input.referrer));
    if (!found.length) throw invalidReferrer();
  } else if (!(await findSource(db, input.referrer))) {
    await refuseIdInOtherCase(db, input.referrer);
  }
  const agent = await resolveAgent(db, agentId);
  if (!(await layoutOf(db)).assignment) {
    throw new ApiError("ASSIGNMENT_NOT_CONFIGURED");
  }
  return agent;
}

function invalidReferrer(): ApiError {
  return new ApiError("INVALID_REFERRER");
}

/** Runs insertLeadStatement; null when the referrer named no account and nothing was written. */
async function insertLead(
  db: Db,
  input: CreateLeadInput,
  referrer: LeadReferrer,
  agent: Agent | null,
): Promise<CreatedLead | null> {
  const leadCustomerId = newCustomerId("person");
  const [row] = await queryPrepared<InsertedLeadRow>(db, insertLeadStatement(input, referrer, agent, leadCustomerId));
  return row ? toCreatedLead(row, input, agent, leadCustomerId) : null;
}
