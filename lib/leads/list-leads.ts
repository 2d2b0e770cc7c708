import type { Db } from "@/lib/db/prisma";
import { leadPage, type LeadFilter } from "@/lib/db/store/leads";
import type { ListedLead, ListLeadsInput, Pagination } from "@/lib/leads/schemas";
import { findSource } from "@/lib/leads/sources/find-source";
import { LISTED_FIELDS, toListedLead } from "@/lib/leads/stored-lead";

/**
 * GET /api/leads: current leads whose referrer is a source account (person
 * referrals are left out), newest referralId first, optionally of one source
 * named by name or id. An unknown source is an empty page; nothing is created.
 */
export async function listLeads(
  db: Db,
  { referrer, limit, offset }: ListLeadsInput,
): Promise<{ leads: ListedLead[]; pagination: Pagination }> {
  let filter: LeadFilter = "all sources";
  if (referrer !== undefined) {
    const source = await findSource(db, referrer);
    if (!source) return { leads: [], pagination: { total: 0, limit, offset, hasMore: false } };
    filter = { sourceId: source.id };
  }
  const { rows, total } = await leadPage(db, filter, LISTED_FIELDS, limit, offset);
  return {
    leads: rows.map(toListedLead),
    pagination: { total, limit, offset, hasMore: offset + rows.length < total },
  };
}
