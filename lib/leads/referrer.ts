import type { Db } from "@/lib/db/client";
import { ApiError } from "@/lib/api/errors";
import type { CreateLeadInput, Referrer } from "./schemas";
import { findSource } from "./sources";

/** An existing account, or the name of a source to create with the lead. */
export type ResolvedReferrer = { existing: Referrer } | { newSourceName: string };

/**
 * Spec rules 3 to 5. A string names a source (by name or returned id) and
 * otherwise a new source; it never names a person and an unknown "src_…" string is
 * just a new name. An object names an existing person or source account or is
 * rejected with 422 INVALID_REFERRER; it never creates one.
 */
export async function resolveReferrer(db: Db, referrer: CreateLeadInput["referrer"]): Promise<ResolvedReferrer> {
  if (typeof referrer === "string") {
    const source = await findSource(db, referrer);
    return source
      ? { existing: { customerId: source.id, name: source.name, type: "source" } }
      : { newSourceName: referrer };
  }
  const account = await db.customer.findUnique({
    where: { id: referrer.customerId },
    select: { id: true, name: true, kind: true },
  });
  if (!account || (account.kind !== "person" && account.kind !== "source")) {
    throw new ApiError("INVALID_REFERRER", "referrer.customerId does not name an existing customer account");
  }
  return { existing: { customerId: account.id, name: account.name, type: account.kind } };
}
