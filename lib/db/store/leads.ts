import type { Db } from "@/lib/db/prisma";
import { queryPrepared } from "@/lib/db/prepared";
import { assignedAgentPlatformIdSql, assignmentSql, HOST, layoutOf, type HostTable } from "@/lib/db/layout";
import type { HostField, HostModel, HostRows } from "@/lib/db/host-names";

type Customer = HostRows["Customer"];
type Referral = HostRows["Referral"];
import {
  ACCOUNT_FIELDS,
  insertSourceCtes,
  namedSourceSql,
  type NewSourceRow,
  type SourceLookup,
} from "@/lib/db/store/sources";
import { Prisma } from "@/lib/generated/prisma/client";

/** What names a new lead's referrer: a source by name or id, an existing account by id, or a new source account. */
export type ReferrerRow = { source: SourceLookup } | { accountId: string } | { newSource: NewSourceRow };

/**
 * A new lead as stored: its referral's values and its lead customer's, by Prisma field. The referrer, the
 * timestamps and the agent are the statement's; every other given field is written, so a new field needs no change
 * here.
 */
export interface NewLeadRow {
  referral: Pick<Referral, "leadCustomerId" | "leadName" | "mobileNumber" | "status"> &
    Partial<Record<keyof Referral, string | null>>;
  leadCustomer: Pick<Customer, "id" | "name" | "mobileNumber"> & Partial<Record<keyof Customer, string | null>>;
  agentUserId: number | null;
}

/** The one row the creation statement returns. */
export interface InsertedLeadRow {
  id: Referral["id"];
  referrerId: string;
  referrerName: string;
  referrerKind: string;
  /** `ads` or `other` for a source account (the host's column, so possibly something else), null for a person. */
  referrerSourceType: string | null;
}

/**
 * Spec rules 3 to 5, as SQL for the existing account a referrer names: at most one row of (id, name, kind). A
 * source lookup names a source (by name or returned id); an account id names an existing person or source account.
 */
function namedAccountSql(referrer: Exclude<ReferrerRow, { newSource: NewSourceRow }>): Prisma.Sql {
  if ("source" in referrer) return namedSourceSql(referrer.source);
  return Prisma.sql`
    SELECT ${ACCOUNT_FIELDS} FROM ${customers.table} c
    WHERE ${customers.column("id", "c")} = ${referrer.accountId} AND ${customers.column("kind", "c")} IN ('person', 'source')`;
}

const { customers, referrals, auditEntries } = HOST;

/** Whether an existing account is the referrer an account id names. */
export async function accountExists(db: Db, accountId: string): Promise<boolean> {
  return (await db.$queryRaw<unknown[]>(namedAccountSql({ accountId }))).length > 0;
}

/** The referrer CTE, `referrer (id, name, kind)` with at most one row; the creation statement is its only reader. */
function referrerCte(referrer: ReferrerRow): Prisma.Sql {
  if (!("newSource" in referrer)) return Prisma.sql`referrer AS (${namedAccountSql(referrer)})`;
  const { id, name, sourceType } = referrer.newSource;
  return Prisma.sql`
    ${insertSourceCtes(referrer.newSource)},
    referrer AS (
      SELECT ${id}::text AS id, ${name}::text AS name, 'source'::text AS kind, ${sourceType}::text AS "sourceType"
    )`;
}

/** `(columns)` and `values` of the fields given, in their order, each value as its column takes it; then `computed`. */
function columnsAndValues<M extends HostModel>(
  table: HostTable<M>,
  fields: Partial<Record<HostField<M>, unknown>>,
  computed: Partial<Record<HostField<M>, Prisma.Sql>>,
): { columns: Prisma.Sql; values: Prisma.Sql } {
  const given = Object.keys(fields) as HostField<M>[];
  const named = Object.keys(computed) as HostField<M>[];
  return {
    columns: Prisma.join([...given, ...named].map((field) => table.column(field))),
    values: Prisma.join([
      ...given.map((field) => table.write(field, fields[field])),
      ...named.map((field) => computed[field]!),
    ]),
  };
}

/** The audit entry of a new referral, or nothing where the host keeps no audit entries. */
const AUDIT_CTE = auditEntries
  ? Prisma.sql`,
    audit AS (
      INSERT INTO ${auditEntries.table} (${Prisma.join(
        (["referralId", "action", "actor", "createdAt"] as const).map((field) => auditEntries.column(field)),
      )})
      SELECT id, 'lead.created', 'lead-intake-api', ${auditEntries.now("createdAt")} FROM referral
    )`
  : Prisma.empty;

/**
 * One INSERT with data-modifying CTEs from `referrer`: one round trip, atomic, and nothing written when `referrer`
 * is empty. Timestamps are set here because a host's own tables may lack column defaults.
 */
export function insertLeadSql(lead: NewLeadRow, referrer: ReferrerRow): Prisma.Sql {
  const customer = columnsAndValues(
    customers,
    { ...lead.leadCustomer, kind: "person" },
    { createdAt: customers.now("createdAt") },
  );
  const referral = columnsAndValues(referrals, lead.referral, {
    referrerCustomerId: Prisma.sql`referrer.id`,
    createdAt: referrals.now("createdAt"),
  });
  const assignment = assignmentSql(lead.agentUserId);
  return Prisma.sql`
    WITH ${referrerCte(referrer)},
    lead_customer AS (
      INSERT INTO ${customers.table} (${customer.columns})
      SELECT ${customer.values}
      FROM referrer
    ),
    referral AS (
      INSERT INTO ${referrals.table} (${referral.columns} ${assignment.column})
      SELECT ${referral.values} ${assignment.value}
      FROM referrer
      RETURNING ${referrals.column("id")} AS id
    )${AUDIT_CTE}
    SELECT referral.id, referrer.id AS "referrerId", referrer.name AS "referrerName", referrer.kind AS "referrerKind",
      referrer."sourceType" AS "referrerSourceType"
    FROM referral, referrer`;
}

/**
 * Runs insertLeadSql as a named prepared statement; null when the referrer named no account and nothing was written.
 */
export async function insertLead(db: Db, lead: NewLeadRow, referrer: ReferrerRow): Promise<InsertedLeadRow | null> {
  const [row] = await queryPrepared<InsertedLeadRow>(db, insertLeadSql(lead, referrer));
  return row ?? null;
}

/** The leads of one source account, or of every source account. */
export type LeadFilter = { sourceId: string } | "all sources";

/**
 * A page row: the generated Referral type for the fields asked, with its referrer's name and its agent's platform id.
 */
export type LeadPageRow<F extends keyof Referral> = Pick<Referral, F | "id" | "referrerCustomerId"> & {
  referrerName: string;
  agentPlatformId: string | null;
};

/** Whether the referral `p` has a source account as its referrer. */
const IS_SOURCE = Prisma.sql`(SELECT ${customers.column("kind", "s")} FROM ${customers.table} s
  WHERE ${customers.column("id", "s")} = ${referrals.column("referrerCustomerId", "p")}) = 'source'`;

/**
 * The SQL of one GET /api/leads answer: `page`, newest first, and `total`, both read from the counts the triggers
 * on referrals keep, so no answer costs more than a block and a page of records (docs/decisions.md, "Deep offsets
 * are sought, not walked" and "Plans the statistics mislead").
 */
export function leadPageSql(
  filter: LeadFilter,
  limit: number,
  offset: number,
): { page: Prisma.Sql; total: Prisma.Sql } {
  const total =
    filter === "all sources"
      ? Prisma.sql`SELECT coalesce(sum(total), 0)::int AS total FROM lead_source_lead_counts`
      : Prisma.sql`SELECT coalesce(sum(total), 0)::int AS total FROM lead_referrer_counts WHERE customer_id = ${filter.sourceId}`;
  const beforeEnd = Prisma.sql`${offset} < (${total})`;
  if (filter !== "all sources") {
    return {
      total,
      page: Prisma.sql`
        SELECT * FROM ${referrals.table} p
        WHERE ${referrals.column("referrerCustomerId", "p")} = ${filter.sourceId} AND ${beforeEnd}
        ORDER BY ${referrals.column("id", "p")} DESC
        LIMIT ${limit} OFFSET ${offset}`,
    };
  }
  if (offset === 0) {
    return {
      total,
      page: Prisma.sql`
        SELECT * FROM ${referrals.table} p WHERE ${IS_SOURCE} AND ${beforeEnd}
        ORDER BY ${referrals.column("id", "p")} DESC LIMIT ${limit}`,
    };
  }
  return {
    total,
    page: Prisma.sql`
      SELECT page.* FROM (
        SELECT block, greatest(${offset} - (through - leads), 0)::bigint AS skip
        FROM (
          SELECT block, leads, sum(leads) OVER (ORDER BY block DESC) AS through
          FROM (SELECT block, sum(total) AS leads FROM lead_source_lead_blocks GROUP BY block) blocks
        ) running
        WHERE through > ${offset}
        ORDER BY block DESC
        LIMIT 1
      ) start
      CROSS JOIN LATERAL (
        SELECT * FROM ${referrals.table} p
        WHERE ${referrals.column("id", "p")} < (start.block + 1) * lead_intake_lead_block_size() AND ${IS_SOURCE}
        ORDER BY ${referrals.column("id", "p")} DESC
        LIMIT ${limit} OFFSET start.skip
      ) page
      WHERE ${beforeEnd}`,
  };
}

/**
 * A page of a filter's referrals, newest first, with `fields`, and the filter's total, from one snapshot. Read apart,
 * a lead inserted between the two statements can leave the total short of what the page saw: hasMore false while
 * older leads remain, and a caller paging as the spec says (rule 5) would miss them.
 */
export async function leadPage<F extends keyof Referral>(
  db: Db,
  filter: LeadFilter,
  fields: readonly F[],
  limit: number,
  offset: number,
): Promise<{ rows: LeadPageRow<F>[]; total: number }> {
  const { page, total } = leadPageSql(filter, limit, offset);
  const layout = await layoutOf(db);
  // The page is picked from referrals alone by referrer id (a join to customers makes PostgreSQL misjudge how many
  // rows match, and sort the whole table).
  const rowsSql = Prisma.sql`
    SELECT ${referrals.select("r", ["id", "referrerCustomerId", ...fields])},
           ${customers.read("name", "c")} AS "referrerName", ${assignedAgentPlatformIdSql(layout)} AS "agentPlatformId"
    FROM (${page}) r
    JOIN ${customers.table} c ON ${customers.column("id", "c")} = ${referrals.column("referrerCustomerId", "r")}
    ORDER BY ${referrals.column("id", "r")} DESC`;
  const [, rows, totals] = await db.$transaction(
    [
      // PostgreSQL cannot know that nearly every referrer is a source, so it starts parallel workers to find a page,
      // which costs more than one process reading a block's and a page's records (docs/decisions.md, "Plans the
      // statistics mislead").
      db.$executeRaw`SET LOCAL max_parallel_workers_per_gather = 0`,
      db.$queryRaw<LeadPageRow<F>[]>(rowsSql),
      db.$queryRaw<{ total: number }[]>(total),
    ],
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead },
  );
  return { rows, total: totals[0]!.total };
}
