import type { Db } from "@/lib/db/prisma";
import { layoutOf } from "@/lib/db/layout";
import { Prisma } from "@/lib/generated/prisma/client";
import { leadPageSql, toListedLead, type LeadPageRow } from "@/lib/leads/lead-rows";
import type { ListedLead, ListLeadsInput, Pagination } from "@/lib/leads/schemas";
import { findSource } from "@/lib/leads/sources";

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
    // Every source's records, without reading the list of sources: each record's referrer kind is read by its
    // primary key as the page is walked newest first, whatever the number of sources. A scalar subquery, not
    // EXISTS: PostgreSQL turned EXISTS into a hash join over every record (it estimates that few records have a
    // source referrer, as few customers are sources), 1.7 s for the first page at 1M leads in the benchmark;
    // this way it walks the primary key and stops at the page (1 to 5 ms, custom or generic plan).
    bySource = Prisma.sql`(SELECT s.kind FROM customers s WHERE s.id = referrals.referrer_customer_id) = 'source'`;
    totalSql = Prisma.sql`SELECT coalesce(sum(total), 0)::int AS total FROM lead_source_lead_counts`;
  }
  const layout = await layoutOf(db);

  // Page and total from one snapshot. Read apart, a lead inserted between the two
  // statements can leave total short of what the page saw: hasMore false while older
  // leads remain, and a caller paging as the spec says (rule 5) would miss them.
  const [, rows, totals] = await db.$transaction(
    [
      // PostgreSQL cannot know that nearly every referrer is a source: it expected to read half of a million
      // records to find a page of them, and started parallel workers for it (10 to 44 ms at 1M leads, against
      // 1 ms in one process). A page reads at most offset + limit index entries.
      db.$executeRaw`SET LOCAL max_parallel_workers_per_gather = 0`,
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
