import { createHash } from "node:crypto";
import type { MatchedKey } from "@/lib/api/auth";
import { ApiError } from "@/lib/api/errors";
import { logRateLimitFailure } from "@/lib/api/log";
import { observer } from "@/lib/db/observer";
import { database } from "@/lib/db/prisma";
import { claimRequests } from "@/lib/db/store/rate-limits";
import { rateLimitsOf, type LimitedOperation, type RateLimit } from "@/lib/settings.mjs";

// Parsed again only when a variable's value changes (as tests change them in-process): two string compares a request.
let parsed: { create?: string; read?: string; limits: Partial<Record<LimitedOperation, RateLimit>> } | undefined;

function currentLimits(): Partial<Record<LimitedOperation, RateLimit>> {
  const { LEADS_RATE_LIMIT_CREATE: create, LEADS_RATE_LIMIT_READ: read } = process.env;
  if (parsed?.create !== create || parsed?.read !== read || !parsed) {
    parsed = { create, read, limits: rateLimitsOf() };
    keys.clear(); // shares claimed under other limits
  }
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
 * A process claims its key's budget from PostgreSQL in shares of 1% of the limit (at least one request), so a busy
 * key costs one upsert per share, not per request; the price is that a window may end with up to a share unused in
 * each other process (docs/operating.md, "Rate limits").
 */
const SHARES_PER_LIMIT = 100;

/**
 * PostgreSQL cancels a claim that runs longer than this, a lock on the table included, and requests pass uncounted:
 * a locked limiter is a blip, not an outage (docs/decisions.md, "A request waits for the claim it needs").
 */
export const CLAIM_STATEMENT_TIMEOUT_MS = 200;

/** What this process holds of a key's budget for one operation: requests left to admit, until the window ends. */
interface Lease {
  left: number;
  /** Date.now() at which the window ends, taken from before the claim was sent so it never runs late. */
  windowEnds: number;
  /** PostgreSQL granted nothing: the window's budget is spent by every process together. */
  spent: boolean;
}

interface KeyState {
  digest: Buffer;
  leases: Partial<Record<LimitedOperation, Lease>>;
  /** The claim in flight per operation, which every request that finds no share left waits for until it ends. */
  claims: Partial<Record<LimitedOperation, Promise<boolean>>>;
}

// Per key value (the current and the previous key), cleared when the limits change.
const keys = new Map<string, KeyState>();

/**
 * Counts a request against its key's budget, shared by every process through PostgreSQL; throws RateLimited when it
 * is spent. No request is admitted before PostgreSQL granted it, however slow the claim; a claim that fails lets the
 * request pass, counted in the metrics: a limiter must not stop lead intake.
 */
export async function admit(operation: LimitedOperation, key: MatchedKey, requestId: string): Promise<void> {
  const limit = currentLimits()[operation];
  if (!limit) return;
  const state = keyStateOf(key);
  for (;;) {
    const lease = state.leases[operation];
    const now = Date.now();
    if (lease && now < lease.windowEnds) {
      if (lease.left > 0) {
        lease.left--;
        return;
      }
      if (lease.spent) {
        observer()?.rateLimited(operation);
        throw new RateLimited(operation, limit, (lease.windowEnds - now) / 1000);
      }
    }
    const claimed = await (state.claims[operation] ??= claimShare(state, operation, limit, requestId).finally(() => {
      delete state.claims[operation];
    }));
    if (!claimed) {
      observer()?.rateLimitUncounted(operation);
      return;
    }
  }
}

/**
 * Claims the next share into the key's lease; false when it could not be stored (logged), so the requests waiting
 * for it pass. Bounded as every statement is: the pool's wait for a connection, PostgreSQL's
 * CLAIM_STATEMENT_TIMEOUT_MS, and the pool's query timeout for a database that does not answer.
 */
async function claimShare(
  state: KeyState,
  operation: LimitedOperation,
  limit: RateLimit,
  requestId: string,
): Promise<boolean> {
  const sentAt = Date.now();
  const share = Math.max(1, Math.floor(limit.requests / SHARES_PER_LIMIT));
  try {
    const { granted, secondsLeft } = await claimRequests(
      database(),
      { keyDigest: state.digest, operation, limit: limit.requests, periodSeconds: limit.periodSeconds, share },
      CLAIM_STATEMENT_TIMEOUT_MS,
    );
    state.leases[operation] = { left: granted, windowEnds: sentAt + secondsLeft * 1000, spent: granted === 0 };
    return true;
  } catch (error) {
    logRateLimitFailure(requestId, operation, error);
    return false;
  }
}

function keyStateOf(key: MatchedKey): KeyState {
  const secret = (key === "current" ? process.env.LEADS_API_KEY : process.env.LEADS_API_KEY_PREVIOUS) ?? "";
  let state = keys.get(secret);
  if (state === undefined) {
    if (keys.size >= 2) keys.clear(); // the current and the previous key
    // A label keeps this digest apart from any other use of SHA-256 over the key.
    const digest = createHash("sha256").update(`lead-intake-rate-limit:${secret}`).digest();
    keys.set(secret, (state = { digest, leases: {}, claims: {} }));
  }
  return state;
}
