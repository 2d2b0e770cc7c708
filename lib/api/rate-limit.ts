import { createHash } from "node:crypto";
import type { MatchedKey } from "@/lib/api/auth";
import { ApiError } from "@/lib/api/errors";
import { logRateLimitFailure } from "@/lib/api/log";
import { observer } from "@/lib/db/observer";
import { database } from "@/lib/db/prisma";
import { countRequest } from "@/lib/db/store/rate-limits";

/** The limited operations: lead creation (POST) and the reads (the GET data operations), each with its own budget. */
export type LimitedOperation = "create" | "read";

export interface RateLimit {
  requests: number;
  periodSeconds: number;
}

const VARIABLES: Record<LimitedOperation, string> = {
  create: "LEADS_RATE_LIMIT_CREATE",
  read: "LEADS_RATE_LIMIT_READ",
};
const PERIODS: Record<string, number> = { s: 1, sec: 1, second: 1, min: 60, minute: 60, h: 3600, hour: 3600 };
const LIMIT = /^([1-9][0-9]{0,8})\/(s|sec|second|min|minute|h|hour)$/;

/**
 * The limits set in the environment (off when unset or empty); a value that is not `<requests>/<s|min|hour>` throws
 * one sentence naming the variable, which stops the start (instrumentation.ts).
 */
export function rateLimitsOf(env: NodeJS.ProcessEnv = process.env): Partial<Record<LimitedOperation, RateLimit>> {
  const limits: Partial<Record<LimitedOperation, RateLimit>> = {};
  for (const operation of ["create", "read"] as const) {
    const value = env[VARIABLES[operation]]?.trim();
    if (!value) continue;
    const match = LIMIT.exec(value);
    if (!match) {
      throw new Error(
        `${VARIABLES[operation]} must be a number of requests per second, minute or hour, such as 600/min (got "${value.slice(0, 40)}")`,
      );
    }
    limits[operation] = { requests: Number(match[1]), periodSeconds: PERIODS[match[2]] };
  }
  return limits;
}

// Parsed again only when a variable's value changes (as tests change them in-process): two string compares a request.
let parsed: { create?: string; read?: string; limits: Partial<Record<LimitedOperation, RateLimit>> } | undefined;

function currentLimits(): Partial<Record<LimitedOperation, RateLimit>> {
  const { LEADS_RATE_LIMIT_CREATE: create, LEADS_RATE_LIMIT_READ: read } = process.env;
  if (parsed?.create !== create || parsed?.read !== read || !parsed) parsed = { create, read, limits: rateLimitsOf() };
  return parsed.limits;
}

/** 429 with the seconds left in the window and the IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers). */
export class RateLimited extends ApiError {
  readonly headers: Record<string, string>;

  constructor(operation: LimitedOperation, limit: RateLimit, secondsLeft: number) {
    super("RATE_LIMITED");
    const seconds = String(Math.max(1, Math.ceil(secondsLeft)));
    this.headers = {
      "Retry-After": seconds,
      RateLimit: `"${operation}";r=0;t=${seconds}`,
      "RateLimit-Policy": `"${operation}";q=${limit.requests};w=${limit.periodSeconds}`,
    };
  }
}

/**
 * Counts a request of a limited operation against its key's budget, shared by every process through PostgreSQL;
 * throws RateLimited when the budget is spent. A key is counted by its digest, never stored. When the count cannot
 * be stored the request passes (a limiter failure must not stop the service), and the failure is logged by kind.
 */
export async function admit(operation: LimitedOperation, key: MatchedKey, requestId: string): Promise<void> {
  const limit = currentLimits()[operation];
  if (!limit) return;
  let counted;
  try {
    counted = await countRequest(database(), keyDigestOf(key), operation, limit.requests, limit.periodSeconds);
  } catch (error) {
    logRateLimitFailure(requestId, operation, error);
    return;
  }
  if (counted.admitted) return;
  observer()?.rateLimited(operation);
  throw new RateLimited(operation, limit, counted.secondsLeft);
}

// Per key value, not per request; a label keeps this digest apart from any other use of SHA-256 over the key.
const digests = new Map<string, Buffer>();

function keyDigestOf(key: MatchedKey): Buffer {
  const secret = (key === "current" ? process.env.LEADS_API_KEY : process.env.LEADS_API_KEY_PREVIOUS) ?? "";
  let digest = digests.get(secret);
  if (digest === undefined) {
    if (digests.size >= 2) digests.clear(); // the current and the previous key
    digests.set(secret, (digest = createHash("sha256").update(`lead-intake-rate-limit:${secret}`).digest()));
  }
  return digest;
}
