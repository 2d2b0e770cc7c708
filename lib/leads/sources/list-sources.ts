import type { Db } from "@/lib/db/prisma";
import { listSourceRows } from "@/lib/db/store/sources";
import type { Source } from "@/lib/leads/schemas";
import { toSource } from "@/lib/leads/sources/find-source";

/** GET /api/leads/sources: every source account by name, and the ads sources among them. */
export async function listSources(db: Db): Promise<{ sources: Source[]; ads: Source[] }> {
  const sources = (await listSourceRows(db)).map(toSource);
  return { sources, ads: sources.filter((s) => s.type === "ads") };
}
