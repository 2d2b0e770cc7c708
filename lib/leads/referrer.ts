import { Prisma } from "@/lib/generated/prisma/client";
import type { CreateLeadInput } from "@/lib/leads/schemas";
import { namedSource } from "@/lib/leads/sources";

/**
 * Spec rules 3 to 5, as SQL for the existing account a referrer names: at most one
 * row of (id, name, kind). A string names a source (by name or returned id); when
 * it names none, it is the name of a new source, and never a person, so an unknown
 * "src_…" string is just a new name. An object names an existing person or source
 * account; when it names none, the request is 422 INVALID_REFERRER.
 */
export function namedAccount(referrer: CreateLeadInput["referrer"]): Prisma.Sql {
  if (typeof referrer === "string") return namedSource(referrer);
  return Prisma.sql`
    SELECT id, name, kind FROM customers WHERE id = ${referrer.customerId} AND kind IN ('person', 'source')`;
}
