import { ApiError } from "@/lib/api/errors";
import type { Db } from "@/lib/db/client";
import { queryPrepared } from "@/lib/db/prepared";
import { layoutOf } from "@/lib/db/layout";
import { Prisma } from "@/lib/generated/prisma/client";
import { resolveAgent } from "./agents";
import { newCustomerId } from "./ids";
import { namedAccount } from "./referrer";
import type { Agent, CreatedLead, CreateLeadInput } from "./schemas";
import { insertSource, isUniqueViolation } from "./sources";

/**
 * POST /api/leads after validation. Checks in the spec's order: the referrer (422
 * INVALID_REFERRER), the agent (422 INVALID_AGENT), assignment storage (503). Then
 * the lead customer, the workflow record and its audit entry, and the new source
 * account if the referrer names one, are written in one SQL statement, so all of
 * them are saved or none. Not idempotent: every call creates a new lead.
 */
export async function createLead(db: Db, input: CreateLeadInput): Promise<CreatedLead> {
  const agent = input.assignedAgentId === undefined ? null : await checkAssignment(db, input, input.assignedAgentId);
  const existing = existingReferrer(input.referrer);
  const created = await insertLead(db, input, existing, agent);
  if (created) return created;
  // Nothing was written: the referrer names no existing account.
  if (typeof input.referrer !== "string") throw invalidReferrer();
  try {
    return saved(await insertLead(db, input, newSource(input.referrer), agent));
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
  }
  const agent = await resolveAgent(db, agentId);
  if (!(await layoutOf(db)).assignment) {
    throw new ApiError("ASSIGNMENT_NOT_CONFIGURED", "Lead assignment is not enabled in this host database");
  }
  return agent;
}

function invalidReferrer(): ApiError {
  return new ApiError("INVALID_REFERRER", "referrer.customerId does not name an existing customer account");
}

/** The `referrer` of a lead whose source is new (a cleaned name): its account and name key are inserted with the lead. */
function newSource(name: string): Prisma.Sql {
  const source = { id: newCustomerId("source"), name, type: "other" } as const;
  return Prisma.sql`
    ${insertSource(source)},
    referrer AS (SELECT ${source.id}::text AS id, ${name}::text AS name, 'source'::text AS kind)`;
}

/**
 * One INSERT statement with data-modifying CTEs, each inserting from `referrer`
 * (CTEs that end in one naming the referrer's account): one round trip, atomic
 * like any statement, nothing written when `referrer` is empty (no row returned),
 * and the foreign keys checked at its end, when every row exists. Timestamps are
 * set here, not left to column defaults a host's own tables may not have.
 * Exported for the benchmark, whose bare server runs it through pg.
 */
export function insertLeadStatement(
  input: CreateLeadInput,
  referrer: Prisma.Sql,
  agent: Agent | null,
  leadCustomerId: string,
): Prisma.Sql {
  const lead = {
    name: input.leadName,
    mobileNumber: input.leadMobileNumber,
    state: input.leadState ?? "",
    city: input.leadCity ?? "",
    address: input.leadAddress ?? "",
  };
  // The column is only named with an agent: a host without assignment storage never gets here with one.
  const agentColumn = agent ? Prisma.sql`, assigned_agent_id` : Prisma.empty;
  const agentValue = agent ? Prisma.sql`, ${agent.numericId}` : Prisma.empty;
  return Prisma.sql`
    WITH ${referrer},
    lead_customer AS (
      INSERT INTO customers (id, kind, name, mobile_number, state, city, address, created_at)
      SELECT ${leadCustomerId}, 'person', ${lead.name}, ${lead.mobileNumber}, ${lead.state}, ${lead.city}, ${lead.address}, now()
      FROM referrer
    ),
    referral AS (
      INSERT INTO referrals (referrer_customer_id, lead_customer_id, lead_name, mobile_number, status, state, city,
                             address, relationship, project_type, remark, created_at ${agentColumn})
      SELECT referrer.id, ${leadCustomerId}, ${lead.name}, ${lead.mobileNumber}, ${statusOf(agent)}, ${lead.state},
             ${lead.city}, ${lead.address}, ${input.relationship ?? "Other"}, ${input.projectType ?? "OTHERS"},
             ${input.remark ?? ""}, now() ${agentValue}
      FROM referrer
      RETURNING id
    ),
    audit AS (
      INSERT INTO audit_entries (referral_id, action, actor, created_at)
      SELECT id, 'lead.created', 'lead-intake-api', now() FROM referral
    )
    SELECT referral.id, referrer.id AS referrer_id, referrer.name AS referrer_name, referrer.kind AS referrer_kind
    FROM referral, referrer`;
}

/** The `referrer` CTE of a lead whose referrer names an existing account. */
export function existingReferrer(referrer: CreateLeadInput["referrer"]): Prisma.Sql {
  return Prisma.sql`referrer AS (${namedAccount(referrer)})`;
}

function statusOf(agent: Agent | null): CreatedLead["status"] {
  return agent ? "Assigned" : "Pending";
}

/** Runs insertLeadStatement; null when the referrer named no account and nothing was written. */
async function insertLead(
  db: Db,
  input: CreateLeadInput,
  referrer: Prisma.Sql,
  agent: Agent | null,
): Promise<CreatedLead | null> {
  const leadCustomerId = newCustomerId("person");
  const [record] = await queryPrepared<{ id: number; referrer_id: string; referrer_name: string; referrer_kind: string }>(
    db,
    insertLeadStatement(input, referrer, agent, leadCustomerId),
  );
  if (!record) return null;
  return {
    referralId: record.id,
    leadCustomerId,
    leadName: input.leadName,
    leadMobileNumber: input.leadMobileNumber,
    referrer: {
      customerId: record.referrer_id,
      name: record.referrer_name,
      type: record.referrer_kind === "person" ? "person" : "source",
    },
    assignedAgentId: agent ? agent.platformId : null,
    status: statusOf(agent),
  };
}
