import type { Db } from "@/lib/db/client";
import { layoutOf } from "@/lib/db/layout";
import { Prisma } from "@/lib/generated/prisma/client";
import { leadPageSql, toListedLead, type LeadPageRow } from "./lead-rows";
import type { ListedLead, ListLeadsInput, Pagination } from "./schemas";
import { findSource } from "./sources";

/**
 * GET /api/leads: current leads whose referrer is a source account (person
 * referrals are left out), newest referralId first, optionally of one source
 * named by name or id. An unknown source is an empty page; nothing is created.
 */
export async function listLeads(
  db: Db,
  { referrer, limit, offset }: ListLeadsInput,
): Promise<{ leads: ListedLead[]; pagination: Pagination }> {
  let bySource: Prisma.Sql;
  let totalSql: Prisma.Sql;
  if (referrer !== undefined) {
    const source = await findSource(db, referrer);
    if (!source) return { leads: [], pagination: { total: 0, limit, offset, hasMore: false } };
    // Equality, not ANY of one id: with ANY, PostgreSQL walked the primary key backwards past
    // 200 other sources' records per match (7 ms at 1M leads) instead of this source's index entries (1 ms).
    bySource = Prisma.sql`referrer_customer_id = ${source.id}`;
    totalSql = Prisma.sql`SELECT coalesce(sum(total), 0)::int AS total FROM lead_referrer_counts WHERE customer_id = ${source.id}`;
  } else {
    // Every source's records, without reading the list of sources: each record's referrer is checked by its
    // primary key (memoized: a page has few distinct referrers), whatever the number of sources.
    bySource = Prisma.sql`EXISTS (SELECT 1 FROM customers s WHERE s.id = referrals.referrer_customer_id AND s.kind = 'source')`;
    totalSql = Prisma.sql`SELECT coalesce(sum(total), 0)::int AS total FROM lead_source_lead_counts`;
  }
  const layout = await layoutOf(db);

  // Page and total from one snapshot. Read apart, a lead inserted between the two
  // statements can leave total short of what the page saw: hasMore false while older
  // leads remain, and a caller paging as the spec says (rule 5) would miss them.
  const [, rows, totals] = await db.$transaction(
    [
      // PostgreSQL cannot know that nearly every referrer is a source (few customers are sources): it expected a
      // page to need most of the table, and hash-joined every record with the sources (1.7 s for the first page
      // at 1M leads in the benchmark) or started parallel workers (10 to 44 ms). Walking the primary key newest
      // first with the memoized referrer check reads at most offset + limit records: 1 to 5 ms for the first page
      // and 0.24 to 0.7 s at offset 500,000 (a scalar subquery per record instead took 1.5 s there).
      db.$executeRaw`SELECT set_config('max_parallel_workers_per_gather', '0', true), set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)`,
      db.$queryRaw<LeadPageRow[]>(leadPageSql(layout, bySource, limit, offset)),
      // Kept by a trigger on referrals (per referrer, and for all sources): the same cost at any number of
      // leads or sources.
      db.$queryRaw<{ total: number }[]>(totalSql),
    ],
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead },
  );
  const total = totals[0].total;
  return {
    leads: rows.map(toListedLead),
    pagination: { total, limit, offset, hasMore: offset + rows.length < total },
  };
}
