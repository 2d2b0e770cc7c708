import { isUniqueViolation } from "@/lib/db/failures";
import type { Db } from "@/lib/db/prisma";
import { insertSource, type NewSourceRow } from "@/lib/db/store/sources";
import { newCustomerId } from "@/lib/leads/ids";
import type { Source } from "@/lib/leads/schemas";
import { cleanSourceName, sourceKey } from "@/lib/leads/source-name";
import { findSource, refuseIdInOtherCase } from "@/lib/leads/sources/find-source";

/** A new source account's row: a new src_ id, the cleaned name and the key of that name. */
export function newSourceRow(name: string, type: Source["type"]): NewSourceRow {
  const cleaned = cleanSourceName(name);
  return { id: newCustomerId("source"), name: cleaned, sourceType: type, key: sourceKey(cleaned) };
}

/**
 * The source account of this name (case and repeated spaces ignored), created with this type if there is none.
 * Safe to run from several processes at once: the name key lets one create win, the others then find it.
 */
export async function ensureSource(db: Db, name: string, type: Source["type"]): Promise<Source> {
  const existing = await findSource(db, name);
  if (existing) return existing;
  await refuseIdInOtherCase(db, name);
  const created = newSourceRow(name, type);
  try {
    await insertSource(db, created);
    return { id: created.id, name: created.name, type };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return (await findSource(db, name))!;
  }
}
