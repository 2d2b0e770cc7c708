import type { Db } from "@/lib/db/prisma";
import { findSourceRow, sourceIdExists, type SourceLookup, type SourceRow } from "@/lib/db/store/sources";
import { LeadRefusal } from "@/lib/leads/refusal";
import type { Source } from "@/lib/leads/schemas";
import { sourceKey } from "@/lib/leads/source-name";

export function toSource(row: SourceRow): Source {
  return { id: row.id, name: row.name, type: row.sourceType === "ads" ? "ads" : "other" };
}

/**
 * A referrer string as the store looks it up: the string, and the key of it as a name (case and repeated spaces
 * ignored).
 */
export function sourceLookup(nameOrId: string): SourceLookup {
  return { nameOrId, key: sourceKey(nameOrId) };
}

/**
 * The source a referrer string names: an exact source id, else a name, case and repeated spaces ignored
 * (docs/decisions.md). PostgreSQL text cannot hold U+0000, so no name or id contains it; asking would fail the query.
 */
export async function findSource(db: Db, nameOrId: string): Promise<Source | null> {
  if (nameOrId.includes("\0")) return null;
  const row = await findSourceRow(db, sourceLookup(nameOrId));
  return row ? toSource(row) : null;
}

/**
 * Refuses a name that names no source but is, case ignored, an existing source id (its key equals the id): as a
 * new source its name key would capture, case ignored, what names that id (docs/decisions.md, "A source id in
 * another case": 422, ids are case-sensitive). One primary-key look-up.
 */
export async function refuseIdInOtherCase(db: Db, name: string): Promise<void> {
  if (await sourceIdExists(db, sourceKey(name))) {
    throw new LeadRefusal(
      "INVALID_REFERRER",
      "referrer differs from an existing source id only in case; source ids are case-sensitive",
    );
  }
}
