import type { Db } from "@/lib/db/prisma";
import { queryPrepared } from "@/lib/db/prepared";
import { builtOnce, builtPerShape, queryBuilt, Slot, type Statement } from "@/lib/db/statement-template";
import {
  assignedAgentPlatformIdSql,
  assignmentSql,
  HOST,
  layoutOf,
  type HostTable,
  type Layout,
} from "@/lib/db/layout";
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
function namedAccountSql(accountId: unknown): Prisma.Sql {
  return Prisma.sql`
    SELECT ${ACCOUNT_FIELDS} FROM ${customers.table} c
    WHERE ${customers.column("id", "c")} = ${accountId} AND ${customers.column("kind", "c")} IN ('person', 'source')`;
}

const { customers, referrals, auditEntries } = HOST;

/** Whether an existing account is the referrer an account id names. */
export async function accountExists(db: Db, accountId: string): Promise<boolean> {
  return (await queryBuilt(db, accountSql(accountId))).length > 0;
}

const accountSql = builtOnce<string>(namedAccountSql(new Slot<string>((accountId) => accountId)));

/** What a creation statement's values are read from. */
interface Creation<R extends ReferrerRow = ReferrerRow> {
  lead: NewLeadRow;
  referrer: R;
}

const slot = <R extends ReferrerRow>(read: (creation: Creation<R>) => unknown) => new Slot(read);

type ReferrerKind = "source" | "accountId" | "newSource";

/** The referrer CTE, `referrer (id, name, kind)` with at most one row; the creation statement is its only reader. */
function referrerCte(kind: ReferrerKind): Prisma.Sql {
  if (kind === "source") {
    const nameOrId = slot<{ source: SourceLookup }>(({ referrer }) => referrer.source.nameOrId);
    const key = slot<{ source: SourceLookup }>(({ referrer }) => referrer.source.key);
    return Prisma.sql`referrer AS (${namedSourceSql({ nameOrId, key })})`;
  }
  if (kind === "accountId") {
    const accountId = slot<{ accountId: string }>(({ referrer }) => referrer.accountId);
    return Prisma.sql`referrer AS (${namedAccountSql(accountId)})`;
  }
  const field = (name: keyof NewSourceRow) =>
    slot<{ newSource: NewSourceRow }>(({ referrer }) => referrer.newSource[name]);
  const [id, name, sourceType, key] = [field("id"), field("name"), field("sourceType"), field("key")];
  return Prisma.sql`
    ${insertSourceCtes({ id, name, sourceType, key })},
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

/** The creation statement of one shape: the referrer's kind, an agent or none, and the fields given, in order. */
interface Shape {
  kind: ReferrerKind;
  withAgent: boolean;
  referral: (keyof NewLeadRow["referral"])[];
  leadCustomer: (keyof NewLeadRow["leadCustomer"])[];
}

/**
 * One INSERT with data-modifying CTEs from `referrer`: one round trip, atomic, and nothing written when `referrer`
 * is empty. Timestamps are set here because a host's own tables may lack column defaults.
 */
function creationSql(shape: Shape): Prisma.Sql {
  const fieldsOf = <F extends string>(fields: F[], read: (lead: NewLeadRow, field: F) => unknown) =>
    Object.fromEntries(fields.map((field) => [field, slot(({ lead }) => read(lead, field))]));
  const customer = columnsAndValues(
    customers,
    { ...fieldsOf(shape.leadCustomer, (lead, field) => lead.leadCustomer[field]), kind: "person" },
    { createdAt: customers.now("createdAt") },
  );
  const referral = columnsAndValues(
    referrals,
    fieldsOf(shape.referral, (lead, field) => lead.referral[field]),
    { referrerCustomerId: Prisma.sql`referrer.id`, createdAt: referrals.now("createdAt") },
  );
  const assignment = assignmentSql(shape.withAgent ? slot(({ lead }) => lead.agentUserId) : null);
  return Prisma.sql`
    WITH ${referrerCte(shape.kind)},
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

/** Each shape's creation statement, built on its first creation; the shapes are the code's, a few per process. */
const creationOf = builtPerShape<Shape, Creation>(
  (shape) => `${shape.kind} ${shape.withAgent} ${shape.referral.join()} ${shape.leadCustomer.join()}`,
  creationSql,
);

/** The creation statement of a lead and its referrer: built once per shape, its values read per request. */
export function insertLeadSql(lead: NewLeadRow, referrer: ReferrerRow): Statement {
  const shape: Shape = {
    kind: "source" in referrer ? "source" : "accountId" in referrer ? "accountId" : "newSource",
    withAgent: lead.agentUserId !== null,
    referral: Object.keys(lead.referral) as Shape["referral"],
    leadCustomer: Object.keys(lead.leadCustomer) as Shape["leadCustomer"],
  };
  return creationOf(shape)({ lead, referrer });
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

/** What a page's statements read their values from. */
interface PageArgs {
  filter: LeadFilter;
  limit: number;
  offset: number;
}

const pageSlot = (read: (args: PageArgs) => unknown) => new Slot(read);
const SOURCE_ID = pageSlot(({ filter }) => (filter === "all sources" ? null : filter.sourceId));
const LIMIT = pageSlot(({ limit }) => limit);
const OFFSET = pageSlot(({ offset }) => offset);

/**
 * Where a deep offset starts: the block of ids that holds it and how many of the filter's records in that block come
 * first. Summing the groups of 1,024 blocks from the newest finds the group, then summing that group's blocks finds
 * the block, so neither sum grows with the table (docs/decisions.md, "Deep offsets are sought, not walked").
 */
function seekSql(allSources: boolean): Prisma.Sql {
  const { groups, blocks, counted } = allSources
    ? {
        groups: Prisma.raw("lead_source_lead_groups"),
        blocks: Prisma.raw("lead_source_lead_blocks"),
        counted: Prisma.sql`true`,
      }
    : {
        groups: Prisma.raw("lead_per_source_lead_groups"),
        blocks: Prisma.raw("lead_per_source_lead_blocks"),
        counted: Prisma.sql`customer_id = ${SOURCE_ID}`,
      };
  return Prisma.sql`
    SELECT block, greatest(start_group.skip - (through - leads), 0)::bigint AS skip
    FROM (
      SELECT block_group, greatest(${OFFSET} - (through - leads), 0)::bigint AS skip
      FROM (
        SELECT block_group, leads, sum(leads) OVER (ORDER BY block_group DESC) AS through
        FROM (SELECT block_group, sum(total) AS leads FROM ${groups} WHERE ${counted} GROUP BY block_group) summed
      ) running
      WHERE through > ${OFFSET}
      ORDER BY block_group DESC
      LIMIT 1
    ) start_group
    CROSS JOIN LATERAL (
      SELECT block, leads, sum(leads) OVER (ORDER BY block DESC) AS through
      FROM (
        SELECT block, sum(total) AS leads FROM ${blocks}
        WHERE ${counted}
          AND block BETWEEN start_group.block_group * lead_intake_lead_block_size()
                        AND (start_group.block_group + 1) * lead_intake_lead_block_size() - 1
        GROUP BY block
      ) summed
    ) running
    WHERE through > start_group.skip
    ORDER BY block DESC
    LIMIT 1`;
}

/**
 * The SQL of one GET /api/leads answer: `page`, newest first, and `total`, both read from the counts the triggers
 * on referrals keep, so no answer costs more than two short sums and a block and a page of records (docs/decisions.md,
 * "Deep offsets are sought, not walked" and "Plans the statistics mislead").
 */
function pageTemplate(allSources: boolean, deep: boolean): { page: Prisma.Sql; total: Prisma.Sql } {
  const total = allSources
    ? Prisma.sql`SELECT coalesce(sum(total), 0)::int AS total FROM lead_source_lead_counts`
    : Prisma.sql`SELECT coalesce(sum(total), 0)::int AS total FROM lead_referrer_counts
        WHERE customer_id = ${SOURCE_ID}`;
  const beforeEnd = Prisma.sql`${OFFSET} < (${total})`;
  const included = allSources ? IS_SOURCE : Prisma.sql`${referrals.column("referrerCustomerId", "p")} = ${SOURCE_ID}`;
  if (!deep) {
    return {
      total,
      page: Prisma.sql`
        SELECT * FROM ${referrals.table} p WHERE ${included} AND ${beforeEnd}
        ORDER BY ${referrals.column("id", "p")} DESC LIMIT ${LIMIT}`,
    };
  }
  return {
    total,
    page: Prisma.sql`
      SELECT page.* FROM (${seekSql(allSources)}) start
      CROSS JOIN LATERAL (
        SELECT * FROM ${referrals.table} p
        WHERE ${referrals.column("id", "p")} < (start.block + 1) * lead_intake_lead_block_size() AND ${included}
        ORDER BY ${referrals.column("id", "p")} DESC
        LIMIT ${LIMIT} OFFSET start.skip
      ) page
      WHERE ${beforeEnd}`,
  };
}

/** The page and total templates of each shape: every source or one, the first page or a deeper one. */
const PAGES = Object.fromEntries(
  [true, false].flatMap((allSources) =>
    [false, true].map((deep) => [`${allSources} ${deep}`, pageTemplate(allSources, deep)]),
  ),
);
const pageShape = (filter: LeadFilter, offset: number) => `${filter === "all sources"} ${offset > 0}`;
const builtPages = Object.fromEntries(
  Object.entries(PAGES).map(([shape, { page, total }]) => [
    shape,
    { page: builtOnce<PageArgs>(page), total: builtOnce<PageArgs>(total) },
  ]),
);

/** One GET /api/leads answer's `page` and `total` statements. */
export function leadPageSql(filter: LeadFilter, limit: number, offset: number): { page: Statement; total: Statement } {
  const { page, total } = builtPages[pageShape(filter, offset)]!;
  const args = { filter, limit, offset };
  return { page: page(args), total: total(args) };
}

interface RowsShape {
  page: string;
  layout: Layout;
  fields: readonly (keyof Referral)[];
}

/** The rows statement of each page shape, layout and fields, built on its first use. */
const pageRowsOf = builtPerShape<RowsShape, PageArgs>(
  ({ page, layout, fields }) => `${page} ${layout.assignment} ${fields.join()}`,
  // The page is picked from referrals alone by referrer id (a join to customers makes PostgreSQL misjudge how many
  // rows match, and sort the whole table).
  ({ page, layout, fields }) => Prisma.sql`
    SELECT ${referrals.select("r", ["id", "referrerCustomerId", ...fields])},
           ${customers.read("name", "c")} AS "referrerName", ${assignedAgentPlatformIdSql(layout)} AS "agentPlatformId"
    FROM (${PAGES[page]!.page}) r
    JOIN ${customers.table} c ON ${customers.column("id", "c")} = ${referrals.column("referrerCustomerId", "r")}
    ORDER BY ${referrals.column("id", "r")} DESC`,
);

const NO_PARALLEL_WORKERS = Prisma.sql`SET LOCAL max_parallel_workers_per_gather = 0`;

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
  const args = { filter, limit, offset };
  const page = pageShape(filter, offset);
  const rowsSql = pageRowsOf({ page, layout: await layoutOf(db), fields })(args);
  const total = builtPages[page]!.total(args);
  const [, rows, totals] = await db.$transaction(
    [
      // PostgreSQL cannot know that nearly every referrer is a source, so it starts parallel workers to find a page,
      // which costs more than one process reading a block's and a page's records (docs/decisions.md, "Plans the
      // statistics mislead").
      db.$executeRaw(NO_PARALLEL_WORKERS),
      queryBuilt<LeadPageRow<F>>(db, rowsSql),
      queryBuilt<{ total: number }>(db, total),
    ],
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead },
  );
  return { rows, total: totals[0]!.total };
}
