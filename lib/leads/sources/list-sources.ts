import type { Db } from "@/lib/db/prisma";
import { listSourceRows } from "@/lib/db/store/sources";
import type { Source } from "@/lib/leads/schemas";
import { toSource } from "@/lib/leads/sources/find-source";

export { sourceListVersion } from "@/lib/db/store/sources";

/** GET /api/leads/sources: every source account by name, the ads sources among them, and the version of the list. */
export async function listSources(db: Db): Promise<{ version: string; sources: Source[]; ads: Source[] }> {
  const { version, rows } = await listSourceRows(db);
  const sources = rows.map(toSource);
  return { version, sources, ads: sources.filter((s) => s.type === "ads") };
}
