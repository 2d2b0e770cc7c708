import { assignedAgentPlatformIdSql, assignmentSql, type Layout } from "@/lib/db/layout";
import { Prisma, type Referral } from "@/lib/generated/prisma/client";
import { namedAccount } from "@/lib/leads/referrer";
import { optionalFieldsOf, type Agent, type CreatedLead, type CreateLeadInput, type ListedLead, type Source } from "@/lib/leads/schemas";
import { insertSource } from "@/lib/leads/sources";

/**
 * How a lead is stored in the host's referrals and read back: the columns, the one-statement creation and the
 * page query, with rows typed from the Prisma schema. A new lead field is a column here, its value in
 * referralValues and its place in toListedLead.
 */

/** The referral columns of a lead, by Prisma field (prisma/schema.prisma maps them). */
const REFERRAL_COLUMNS = {
  referrerCustomerId: "referrer_customer_id",
  leadCustomerId: "lead_customer_id",
  leadName: "lead_name",
  mobileNumber: "mobile_number",
  status: "status",
  state: "state",
  city: "city",
  address: "address",
  relationship: "relationship",
  projectType: "project_type",
  remark: "remark",
  createdAt: "created_at",
} as const satisfies Partial<Record<keyof Referral, string>>;

type ReferralField = keyof typeof REFERRAL_COLUMNS;
const referralFields = Object.keys(REFERRAL_COLUMNS) as ReferralField[];

/** The column names, comma-separated in REFERRAL_COLUMNS order: an INSERT lists its values in this order. */
export const referralColumns = Prisma.raw(Object.values(REFERRAL_COLUMNS).join(", "));

/** What names a lead's referrer: an existing account (a string or {customerId}), or a new source account. */
export type LeadReferrer = { existing: CreateLeadInput["referrer"] } | { newSource: Source };

/** The referrer CTE, `referrer (id, name, kind)` with at most one row; the statement below is its only reader. */
function referrerCte(referrer: LeadReferrer): Prisma.Sql {
  if ("existing" in referrer) return Prisma.sql`referrer AS (${namedAccount(referrer.existing)})`;
  const { id, name } = referrer.newSource;
  return Prisma.sql`
    ${insertSource(referrer.newSource)},
    referrer AS (SELECT ${id}::text AS id, ${name}::text AS name, 'source'::text AS kind)`;
}

function statusOf(agent: Agent | null): CreatedLead["status"] {
  return agent ? "Assigned" : "Pending";
}

/** A new lead's referral values, by field; `referrer.id` is the referrer CTE's. */
function referralValues(input: CreateLeadInput, agent: Agent | null, leadCustomerId: string): Record<ReferralField, unknown> {
  const optional = optionalFieldsOf(input);
  return {
    referrerCustomerId: Prisma.sql`referrer.id`,
    leadCustomerId,
    leadName: input.leadName,
    mobileNumber: input.leadMobileNumber,
    status: statusOf(agent),
    state: optional.leadState,
    city: optional.leadCity,
    address: optional.leadAddress,
    relationship: optional.relationship,
    projectType: optional.projectType,
    remark: optional.remark,
    createdAt: Prisma.sql`now()`,
  };
}

/** The one row the creation statement returns. */
export interface InsertedLeadRow {
  id: Referral["id"];
  referrerId: string;
  referrerName: string;
  referrerKind: string;
}

/**
 * One INSERT statement with data-modifying CTEs, each inserting from `referrer`: one round trip, atomic like
 * any statement, nothing written when `referrer` is empty (no row returned), and the foreign keys checked at
 * its end, when every row exists. Timestamps are set here, not left to column defaults a host's own tables may
 * not have. Exported for the benchmark, whose bare server runs it through pg.
 */
export function insertLeadStatement(
  input: CreateLeadInput,
  referrer: LeadReferrer,
  agent: Agent | null,
  leadCustomerId: string,
): Prisma.Sql {
  const values = referralValues(input, agent, leadCustomerId);
  const assignment = assignmentSql(agent ? agent.numericId : null);
  return Prisma.sql`
    WITH ${referrerCte(referrer)},
    lead_customer AS (
      INSERT INTO customers (id, kind, name, mobile_number, state, city, address, created_at)
      SELECT ${leadCustomerId}, 'person', ${values.leadName}, ${values.mobileNumber}, ${values.state}, ${values.city},
             ${values.address}, now()
      FROM referrer
    ),
    referral AS (
      INSERT INTO referrals (${referralColumns} ${assignment.column})
      SELECT ${Prisma.join(referralFields.map((field) => values[field]))} ${assignment.value}
      FROM referrer
      RETURNING id
    ),
    audit AS (
      INSERT INTO audit_entries (referral_id, action, actor, created_at)
      SELECT id, 'lead.created', 'lead-intake-api', now() FROM referral
    )
    SELECT referral.id, referrer.id AS "referrerId", referrer.name AS "referrerName", referrer.kind AS "referrerKind"
    FROM referral, referrer`;
}

const listedFields = Object.fromEntries(referralFields.map((field) => [field, true])) as Record<ReferralField, true>;

/** A row of leadPageSql: the generated Referral type, with its referrer's name and its agent's platform id. */
export type LeadPageRow = Prisma.ReferralGetPayload<{ select: typeof listedFields & { id: true } }> & {
  referrerName: string;
  agentPlatformId: string | null;
};

/**
 * The listed leads of `page`, a query of referrals rows (newest first, already limited to the page): each with its
 * referrer's name and its agent's platform id. The page is picked from referrals alone by referrer id (a join to
 * customers makes PostgreSQL misjudge how many rows match, and sort the whole table).
 */
export function leadPageSql(layout: Layout, page: Prisma.Sql): Prisma.Sql {
  const columns = referralFields.map((field) => Prisma.raw(`r.${REFERRAL_COLUMNS[field]} AS "${field}"`));
  return Prisma.sql`
    SELECT r.id, ${Prisma.join(columns)}, c.name AS "referrerName", ${assignedAgentPlatformIdSql(layout)} AS "agentPlatformId"
    FROM (${page}) r
    JOIN customers c ON c.id = r.referrer_customer_id
    ORDER BY r.id DESC`;
}

export function toListedLead(row: LeadPageRow): ListedLead {
  return {
    referralId: row.id,
    leadCustomerId: row.leadCustomerId,
    leadName: row.leadName,
    leadMobileNumber: row.mobileNumber,
    referrer: { customerId: row.referrerCustomerId, name: row.referrerName, type: "source" },
    assignedAgentId: row.agentPlatformId,
    status: row.status,
    leadState: row.state ?? "",
    leadCity: row.city ?? "",
    leadAddress: row.address ?? "",
    relationship: row.relationship ?? "",
    projectType: row.projectType ?? "",
    remark: row.remark ?? "",
    createdAt: row.createdAt ? row.createdAt.toISOString() : null,
  };
}

export function toCreatedLead(row: InsertedLeadRow, input: CreateLeadInput, agent: Agent | null, leadCustomerId: string): CreatedLead {
  return {
    referralId: row.id,
    leadCustomerId,
    leadName: input.leadName,
    leadMobileNumber: input.leadMobileNumber,
    referrer: { customerId: row.referrerId, name: row.referrerName, type: row.referrerKind === "person" ? "person" : "source" },
    assignedAgentId: agent ? agent.platformId : null,
    status: statusOf(agent),
  };
}
