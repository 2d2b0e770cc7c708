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
  let sourceId: string | null = null;
  if (referrer !== undefined) {
    const source = await findSource(db, referrer);
    if (!source) return { leads: [], pagination: { total: 0, limit, offset, hasMore: false } };
    sourceId = source.id;
  }
  const layout = await layoutOf(db);
  const { page, total } = listingSql(sourceId, limit, offset);

  // Page and total from one snapshot. Read apart, a lead inserted between the two
  // statements can leave total short of what the page saw: hasMore false while older
  // leads remain, and a caller paging as the spec says (rule 5) would miss them.
  const [, rows, totals] = await db.$transaction(
    [
      // PostgreSQL cannot know that nearly every referrer is a source: it expected to read half of a million
      // records to find a page of them, and started parallel workers for it (10 to 44 ms at 1M leads, against
      // 1 ms in one process). A page reads at most a block's and a page's records (listingSql).
      db.$executeRaw`SET LOCAL max_parallel_workers_per_gather = 0`,
      db.$queryRaw<LeadPageRow[]>(leadPageSql(layout, page)),
      db.$queryRaw<{ total: number }[]>(total),
    ],
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead },
  );
  return {
    leads: rows.map(toListedLead),
    pagination: { total: totals[0].total, limit, offset, hasMore: offset + rows.length < totals[0].total },
  };
}

/**
 * The SQL of one GET /api/leads answer, for one source's records or (sourceId null) every source's: `page`, the
 * referrals of the page newest first, and `total`, the number of all of them. Both from counts kept by the trigger
 * on referrals (prisma/migrations), so that no answer costs more than a block and a page of records:
 *
 * - `total` reads per-connection count rows: the same cost at any number of leads or sources.
 * - An offset at or past `total` is the empty page without reading a record: the page's one-time filter.
 * - Every source's records at an offset: the blocks of 1,024 ids, summed from the newest, give the block that holds
 *   the offset and how many of its source records come before it; the walk starts there. Walking the skipped
 *   records instead cost 2.0 to 3.7 s at offset 500,000 of 1M leads (docs/decisions.md, "Deep offsets are sought").
 * - The first page walks from the newest record: each record's referrer kind is read by its primary key as the page
 *   is walked, whatever the number of sources. A scalar subquery, not EXISTS: PostgreSQL turned EXISTS into a hash
 *   join over every record (it estimates that few records have a source referrer, as few customers are sources),
 *   1.7 s for the first page at 1M leads; this way it walks the primary key and stops at the page (1 to 5 ms).
 * - One source's records: equality, not ANY of one id: with ANY, PostgreSQL walked the primary key backwards past
 *   200 other sources' records per match (7 ms at 1M leads) instead of this source's index entries (1 ms).
 */
export function listingSql(sourceId: string | null, limit: number, offset: number): { page: Prisma.Sql; total: Prisma.Sql } {
  const total =
    sourceId === null
      ? Prisma.sql`SELECT coalesce(sum(total), 0)::int AS total FROM lead_source_lead_counts`
      : Prisma.sql`SELECT coalesce(sum(total), 0)::int AS total FROM lead_referrer_counts WHERE customer_id = ${sourceId}`;
  const beforeEnd = Prisma.sql`${offset} < (${total})`;
  if (sourceId !== null) {
    return {
      total,
      page: Prisma.sql`
        SELECT * FROM referrals
        WHERE referrer_customer_id = ${sourceId} AND ${beforeEnd}
        ORDER BY id DESC
        LIMIT ${limit} OFFSET ${offset}`,
    };
  }
  const isSource = Prisma.sql`(SELECT s.kind FROM customers s WHERE s.id = referrals.referrer_customer_id) = 'source'`;
  if (offset === 0) {
    return { total, page: Prisma.sql`SELECT * FROM referrals WHERE ${isSource} AND ${beforeEnd} ORDER BY id DESC LIMIT ${limit}` };
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
        SELECT * FROM referrals
        WHERE id < (start.block + 1) * lead_intake_lead_block_size() AND ${isSource}
        ORDER BY id DESC
        LIMIT ${limit} OFFSET start.skip
      ) page
      WHERE ${beforeEnd}`,
  };
}
