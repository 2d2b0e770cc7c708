import type { Db } from "@/lib/db/connect";
import { missingGrants } from "@/lib/db/grants";
import { rateLimitsOf } from "@/lib/settings.mjs";

/**
 * When a rate limit is set and the role in DATABASE_URL lacks a grant the limiter needs, one sentence naming the
 * variables and the grants (every claim would fail and every request pass uncounted); otherwise undefined.
 */
export async function uncountedLimitsProblem(db: Db): Promise<string | undefined> {
  const limits = rateLimitsOf();
  const variables = [
    ...(limits.create ? ["LEADS_RATE_LIMIT_CREATE"] : []),
    ...(limits.read ? ["LEADS_RATE_LIMIT_READ"] : []),
  ];
  if (variables.length === 0) return undefined;
  const missing = await missingGrants((text, values) => db.$queryRawUnsafe(text, ...values), ["rate limits"]);
  if (missing.length === 0) return undefined;
  return (
    `${variables.join(" and ")} cannot be counted: the database role lacks ${missing.map((m) => m.grant).join(", ")} ` +
    "(docs/host-guide.md, Grants), so limited requests pass uncounted and readiness answers 503 until it is granted"
  );
}
