import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError } from "@/lib/api/errors";
import { MIN_KEY_LENGTH } from "@/lib/api/api-key.mjs";
import { dataOperationsRefused } from "@/lib/settings.mjs";

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * 401 with its RFC 6750 challenge: `Bearer`, with `error="invalid_token"` when a bearer key was presented but matched
 * no configured key.
 */
export class Unauthorized extends ApiError {
  readonly challenge: string;

  constructor(keyPresented: boolean) {
    super("UNAUTHORIZED");
    this.challenge = keyPresented ? 'Bearer error="invalid_token"' : "Bearer";
  }
}

/** Which configured key a request presented (the access log says it, for key rotation). */
export type MatchedKey = "current" | "previous";

/**
 * Spec "Authentication": 503 API_NOT_CONFIGURED without a usable server key, 401 without the right bearer key;
 * LEADS_API_KEY_PREVIOUS is accepted too while set (docs/operating.md, "Key rotation"). Both keys are always
 * compared in constant time, so timing does not tell which one matched.
 */
export function authenticate(request: { headers: Pick<Headers, "get"> }): MatchedKey {
  if (!apiConfigured()) throw new ApiError("API_NOT_CONFIGURED");
  const current = process.env.LEADS_API_KEY!;
  const previous = process.env.LEADS_API_KEY_PREVIOUS;
  const presented = BEARER.exec(request.headers.get("authorization") ?? "")?.[1];
  const matched = presented === undefined ? undefined : keyMatching(presented, current, previous);
  if (matched) return matched;
  throw new Unauthorized(presented !== undefined);
}

/** Which key a value is, compared by digest in constant time, both keys always compared. */
function keyMatching(value: string, current: string, previous: string | undefined): MatchedKey | undefined {
  const digest = sha256(value);
  const isCurrent = timingSafeEqual(digest, keyDigest(current));
  const isPrevious = previous ? timingSafeEqual(digest, keyDigest(previous)) : false;
  return isCurrent ? "current" : isPrevious ? "previous" : undefined;
}

/** Whether the data operations can answer: a usable key, or two, and every setting read (readiness says so too). */
export function apiConfigured(): boolean {
  const current = process.env.LEADS_API_KEY;
  const previous = process.env.LEADS_API_KEY_PREVIOUS;
  return Boolean(
    current &&
    current.length >= MIN_KEY_LENGTH &&
    !(previous && previous.length < MIN_KEY_LENGTH) &&
    !dataOperationsRefused(),
  );
}

/** The configured keys (current, then previous when set), for whatever must never show them (the access log). */
export function configuredKeys(): string[] {
  const keys: string[] = [];
  if (process.env.LEADS_API_KEY) keys.push(process.env.LEADS_API_KEY);
  if (process.env.LEADS_API_KEY_PREVIOUS) keys.push(process.env.LEADS_API_KEY_PREVIOUS);
  return keys;
}

// The server keys' digests are computed once per key value, not per request (docs/decisions.md, "Per-request work
// computed once").
const digests = new Map<string, Buffer>();

function keyDigest(secret: string): Buffer {
  let digest = digests.get(secret);
  if (digest === undefined) {
    if (digests.size >= 2) digests.clear(); // the current and the previous key
    digests.set(secret, (digest = sha256(secret)));
  }
  return digest;
}

function sha256(secret: string): Buffer {
  return createHash("sha256").update(secret).digest();
}
