import { ApiError } from "@/lib/api/errors";
import type { Db } from "@/lib/db/client";
import { layoutOf } from "@/lib/db/layout";
import { Prisma } from "@/lib/generated/prisma/client";
import { resolveAgent } from "./agents";
import { newCustomerId } from "./ids";
import { resolveReferrer, type ResolvedReferrer } from "./referrer";
import type { Agent, CreatedLead, CreateLeadInput, Referrer } from "./schemas";
import { sourceKey } from "./source-name";
import { isUniqueViolation } from "./sources";

/**
 * POST /api/leads after validation: resolve the referrer (422 INVALID_REFERRER),
 * the agent (422 INVALID_AGENT), check assignment storage (503), then write the
 * new source account if any, the lead customer, the workflow record and its audit
 * entry in one SQL statement, so all of them are saved or none. Not idempotent:
 * every call creates a new lead customer and record.
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

/**
 * One INSERT statement with data-modifying CTEs: one round trip, atomic like any
 * statement, and the foreign keys are checked at its end, when every row exists.
 * (A Prisma nested create did the same in about 9 ms of query planning and round
 * trips per lead; this takes about 1 ms.) Timestamps are set here, not left to
 * column defaults a host's own tables may not have.
 */
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
  const leadCustomerId = newCustomerId("person");
  const introducer: Referrer =
    "existing" in referrer
      ? referrer.existing
      : { customerId: newCustomerId("source"), name: referrer.newSourceName, type: "source" };
  const newSource =
    "existing" in referrer
      ? Prisma.empty
      : Prisma.sql`
        new_source AS (
          INSERT INTO customers (id, kind, name, source_type, state, city, address, created_at)
          VALUES (${introducer.customerId}, 'source', ${introducer.name}, 'other', '', '', '', now())
        ),
        new_source_name AS (
          INSERT INTO lead_source_names (key, customer_id) VALUES (${sourceKey(introducer.name)}, ${introducer.customerId})
        ),`;
  // The column is only named with an agent: a host without assignment storage never gets here with one.
  const agentColumn = agent ? Prisma.sql`, assigned_agent_id` : Prisma.empty;
  const agentValue = agent ? Prisma.sql`, ${agent.numericId}` : Prisma.empty;

  const [record] = await db.$queryRaw<{ id: number }[]>`
    WITH ${newSource}
    lead_customer AS (
      INSERT INTO customers (id, kind, name, mobile_number, state, city, address, created_at)
      VALUES (${leadCustomerId}, 'person', ${lead.name}, ${lead.mobileNumber}, ${lead.state}, ${lead.city}, ${lead.address}, now())
    ),
    referral AS (
      INSERT INTO referrals (referrer_customer_id, lead_customer_id, lead_name, mobile_number, status, state, city,
                             address, relationship, project_type, remark, created_at ${agentColumn})
      VALUES (${introducer.customerId}, ${leadCustomerId}, ${lead.name}, ${lead.mobileNumber}, ${status}, ${lead.state},
              ${lead.city}, ${lead.address}, ${input.relationship ?? "Other"}, ${input.projectType ?? "OTHERS"},
              ${input.remark ?? ""}, now() ${agentValue})
      RETURNING id
    ),
    audit AS (
      INSERT INTO audit_entries (referral_id, action, actor, created_at)
      SELECT id, 'lead.created', 'lead-intake-api', now() FROM referral
    )
    SELECT id FROM referral`;
  return {
    referralId: record.id,
    leadCustomerId,
    leadName: lead.name,
    leadMobileNumber: lead.mobileNumber,
    referrer: introducer,
    assignedAgentId: agent ? agent.platformId : null,
    status,
  };
}
