import { createHash } from "node:crypto";
import type { MatchedKey } from "@/lib/api/auth";
import { ApiError } from "@/lib/api/errors";
import { logRateLimitFailure, logRateLimitLate } from "@/lib/api/log";
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
 * The most a request waits for a share to be claimed before it passes uncounted; PostgreSQL cancels the claim a
 * little sooner, so a live database frees the connection (docs/decisions.md, "The limiter gives up after 250 ms").
 */
export const CLAIM_WAIT_MS = 250;
const CLAIM_STATEMENT_TIMEOUT_MS = 200;
/** How late a timer may fire before the event loop, not the claim, is taken to be what was slow. */
const LOOP_SLACK_MS = 50;

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
  /**
   * The claim in flight per operation, which every request that finds no share left waits for, at most CLAIM_WAIT_MS:
   * `late` once that has passed, so later requests pass at once until the claim ends and the next may start.
   */
  claims: Partial<Record<LimitedOperation, Promise<ClaimOutcome>>>;
  /**
   * Requests that passed while a claim was late: the shares granted next pay for them first, so a slow claim (a
   * busy database, an event loop held up) lets requests through early but not past the limit.
   */
  owed: Partial<Record<LimitedOperation, number>>;
}

type ClaimOutcome = "claimed" | "failed" | "late";

// Per key value (the current and the previous key), cleared when the limits change.
const keys = new Map<string, KeyState>();

/**
 * Counts a request against its key's budget, shared by every process through PostgreSQL; throws RateLimited when it
 * is spent. A claim that fails or is late lets the request pass, counted in the metrics: a limiter must not stop
 * lead intake.
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
    const outcome = await (state.claims[operation] ??= boundedClaim(state, operation, limit, requestId));
    if (outcome !== "claimed") {
      if (outcome === "late") state.owed[operation] = (state.owed[operation] ?? 0) + 1;
      observer()?.rateLimitUncounted(operation);
      return;
    }
  }
}

/** The next share's claim as requests wait for it: its outcome, or `late` once CLAIM_WAIT_MS has passed. */
function boundedClaim(
  state: KeyState,
  operation: LimitedOperation,
  limit: RateLimit,
  requestId: string,
): Promise<ClaimOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const armedAt = performance.now();
  const gaveUp = new Promise<"late">((resolve) => {
    const late = () => {
      logRateLimitLate(requestId, operation);
      resolve("late");
    };
    timer = setTimeout(() => {
      // A timer this late means the event loop was held up (a busy process), not the database: the claim's answer
      // may be waiting to be read, so it gets that time again once.
      const overdue = performance.now() - armedAt - CLAIM_WAIT_MS;
      if (overdue < LOOP_SLACK_MS) late();
      else timer = setTimeout(late, Math.min(overdue, CLAIM_WAIT_MS));
    }, CLAIM_WAIT_MS);
  });
  const claimed = claimShare(state, operation, limit, requestId).finally(() => {
    clearTimeout(timer);
    delete state.claims[operation];
  });
  return Promise.race([claimed, gaveUp]);
}

/**
 * Claims the next share into the key's lease, less what is owed; `failed` when it could not be stored (logged), so
 * requests pass, and what was owed is forgiven (a limiter that fails must not hold a key back once it recovers).
 */
async function claimShare(
  state: KeyState,
  operation: LimitedOperation,
  limit: RateLimit,
  requestId: string,
): Promise<ClaimOutcome> {
  const sentAt = Date.now();
  const share = Math.max(1, Math.floor(limit.requests / SHARES_PER_LIMIT));
  try {
    const { granted, secondsLeft } = await claimRequests(
      database(),
      state.digest,
      operation,
      limit.requests,
      limit.periodSeconds,
      share,
      CLAIM_STATEMENT_TIMEOUT_MS,
    );
    const paid = Math.min(granted, state.owed[operation] ?? 0);
    state.owed[operation] = (state.owed[operation] ?? 0) - paid;
    state.leases[operation] = { left: granted - paid, windowEnds: sentAt + secondsLeft * 1000, spent: granted === 0 };
    return "claimed";
  } catch (error) {
    state.owed[operation] = 0;
    logRateLimitFailure(requestId, operation, error);
    return "failed";
  }
}

function keyStateOf(key: MatchedKey): KeyState {
  const secret = (key === "current" ? process.env.LEADS_API_KEY : process.env.LEADS_API_KEY_PREVIOUS) ?? "";
  let state = keys.get(secret);
  if (state === undefined) {
    if (keys.size >= 2) keys.clear(); // the current and the previous key
    // A label keeps this digest apart from any other use of SHA-256 over the key.
    const digest = createHash("sha256").update(`lead-intake-rate-limit:${secret}`).digest();
    keys.set(secret, (state = { digest, leases: {}, claims: {}, owed: {} }));
  }
  return state;
}
