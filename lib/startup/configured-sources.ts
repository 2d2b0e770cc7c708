import type { Db } from "@/lib/db/prisma";
import { readConfiguredSources } from "@/lib/leads/sources/configured";
import { ensureSource } from "@/lib/leads/sources/ensure-source";

/**
 * Creates the account of each configured source that has none yet (docs/decisions.md), so that every source has a
 * stable src_ id before its first lead and listing never writes. Safe to run from several processes at once.
 */
export async function ensureConfiguredSources(db: Db): Promise<void> {
  for (const { name, type } of readConfiguredSources()) await ensureSource(db, name, type);
}
