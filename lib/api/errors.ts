import { READ_WAIT_MS } from "@/lib/db/read-budget";
import { MIN_KEY_LENGTH } from "@/lib/api/api-key.mjs";
import { MALFORMED_REQUEST } from "@/lib/api/malformed-request.mjs";

/** Largest request body accepted, in bytes (1 MiB); larger ones get 413 PAYLOAD_TOO_LARGE (lib/api/body.ts). */
export const MAX_BODY_BYTES = 1024 * 1024;

interface ErrorSpec {
  status: number;
  /** The `error` text when the throw site gives no more specific one. */
  message: string;
  /** When it happens, for integrators (the OpenAPI document's response descriptions). */
  when: string;
  retry: string;
  /** Sent as `Retry-After` (seconds) with the error, and documented with it. */
  retryAfterSeconds?: number;
  /** The same GET may succeed later, so clients retry it (the document's `x-error-codes`, the typed client). */
  transient?: true;
  /** Sent with `Retry-After` (the seconds left in the window) and the `RateLimit` / `RateLimit-Policy` headers. */
  rateLimitHeaders?: true;
}

const FIX = "Correct the request before retrying.";
const ADMIN = "Do not retry: the deployed version differs from this contract; consult the administrator.";

/**
 * The one table of the API's errors: code -> status, default message, when it
 * happens and retry advice. Throw sites name a code; the OpenAPI document's error
 * responses, their descriptions and examples are generated from this table.
 */
export const ERRORS = {
  INVALID_JSON: {
    status: 400,
    message: "Request body is not valid JSON",
    when: "The POST body is not valid JSON (or not valid UTF-8).",
    retry: FIX,
  },
  INVALID_INPUT: {
    status: 400,
    message: "Invalid input",
    when: "Invalid body fields or query parameters; `issues` names each one.",
    retry: FIX,
  },
  MALFORMED_REQUEST: { ...MALFORMED_REQUEST, retry: FIX },
  UNAUTHORIZED: {
    status: 401,
    message: "Missing or incorrect bearer key",
    when: "Bearer key missing or incorrect.",
    retry: "Correct the key before retrying.",
  },
  NOT_FOUND: {
    status: 404,
    message: "No such API path",
    when: "No such path: the deployed version differs from this contract; consult the administrator.",
    retry: ADMIN,
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    message: "Method not supported on this path",
    when: "Method not supported on this path (the `Allow` header lists the supported ones). For a documented operation: the deployed version differs from this contract; consult the administrator.",
    retry: ADMIN,
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    message: `Request body is larger than ${MAX_BODY_BYTES} bytes`,
    when: `The request body is larger than 1 MiB (${MAX_BODY_BYTES} bytes).`,
    retry: "Send a smaller body.",
  },
  INVALID_CONTENT_TYPE: {
    status: 415,
    message: "Content-Type must be application/json",
    when: "POST without `Content-Type: application/json`.",
    retry: FIX,
  },
  INVALID_AGENT: {
    status: 422,
    message: "assignedAgentId does not name a user eligible for sales assignment",
    when: "The assigned user does not exist or is not eligible for sales assignment.",
    retry: FIX,
  },
  INVALID_REFERRER: {
    status: 422,
    message: "referrer.customerId does not name an existing customer account",
    when: "The referrer account ID (`referrer.customerId`) was not found.",
    retry: FIX,
  },
  INTERNAL_ERROR: {
    status: 500,
    message: "The request could not be completed",
    when: "The request could not be completed; internal details are omitted.",
    retry:
      "GET may be retried with bounded backoff. POST: do not replay automatically: the outcome is not known to you; reconcile first (GET /api/leads) against your ledger of `referralId` and `leadCustomerId`.",
    transient: true,
  },
  API_NOT_CONFIGURED: {
    status: 503,
    message: "The lead intake API is not configured on the server",
    when: `The server's API key is not configured, or is shorter than ${MIN_KEY_LENGTH} characters, or one of the service's settings cannot be read (the server's log names it once at start).`,
    retry: "Needs the administrator; retrying does not help until the server is configured.",
  },
  ASSIGNMENT_NOT_CONFIGURED: {
    status: 503,
    message: "Lead assignment is not enabled in this host database",
    when: "Assignment storage is not enabled in the host database (POST with `assignedAgentId`).",
    retry: "Needs the administrator; retrying does not help until the server is configured.",
  },
  RATE_LIMITED: {
    status: 429,
    message: "Too many requests with this key; retry after the number of seconds in Retry-After",
    when: "This key used up its requests for the operation in the current window; the server's limits are `LEADS_RATE_LIMIT_CREATE` (POST) and `LEADS_RATE_LIMIT_READ` (the GET operations), each key with its own budget. The `RateLimit` and `RateLimit-Policy` headers say the limit and when it resets.",
    retry:
      "Retry after the number of seconds in `Retry-After`; nothing was read or written, so even a POST may be sent again without creating a duplicate.",
    rateLimitHeaders: true,
    transient: true,
  },
  READS_BUSY: {
    status: 503,
    message: "Too many reads are in progress; retry after the number of seconds in Retry-After",
    when: `Every database connection that reads may use was busy for ${READ_WAIT_MS / 1000} s (GET operations only; lead creation keeps connections of its own).`,
    retry: "Retry after the number of seconds in `Retry-After`; nothing was read or changed.",
    retryAfterSeconds: 1,
    transient: true,
  },
  CREATION_BUSY: {
    status: 429,
    message: "Too many leads are being created at once; retry after the number of seconds in Retry-After",
    when: `Every database connection lead creation may use is busy and the line in front of them is full (answered before the body is read), or the request waited in that line for longer than a few creations take (at most ${READ_WAIT_MS / 1000} s). Nothing was stored.`,
    retry:
      "Retry after the number of seconds in `Retry-After`, with backoff; nothing was stored, so the same POST may be sent again without creating a duplicate.",
    retryAfterSeconds: 1,
    transient: true,
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]];

/** The status of each code (from ERRORS). */
export const ERROR_STATUS = Object.fromEntries(ERROR_CODES.map((code) => [code, ERRORS[code].status])) as {
  [C in ErrorCode]: (typeof ERRORS)[C]["status"];
};

/** The `Retry-After` seconds a code is answered with, if any (from ERRORS). */
export function retryAfterOf(code: ErrorCode): number | undefined {
  const spec: ErrorSpec = ERRORS[code];
  return spec.retryAfterSeconds;
}

/** Whether a code is answered with `Retry-After` and the `RateLimit` headers (from ERRORS). */
export function hasRateLimitHeaders(code: ErrorCode): boolean {
  const spec: ErrorSpec = ERRORS[code];
  return spec.rateLimitHeaders === true;
}

/** The codes whose body carries `issues` (validation failures); no other code has them. */
export const CODES_WITH_ISSUES: readonly ErrorCode[] = ["INVALID_INPUT"];

export interface Issue {
  path: string;
  message: string;
}

/**
 * Bounds of an error answer (decisions.md 14): at most MAX_ISSUES issues, then one counting the rest, and no path
 * over MAX_PATH_CHARS (docs/decisions.md, "14. Bounded error answers").
 */
export const MAX_ISSUES = 20;
export const MAX_PATH_CHARS = 200;

/** An issue at a path given as keys: dot-joined, cut to MAX_PATH_CHARS (ending in "…") when longer. */
export function issueAt(path: readonly PropertyKey[], message: string): Issue {
  let joined = path.map(String).join(".");
  if (joined.length > MAX_PATH_CHARS) {
    let cut = MAX_PATH_CHARS - 1;
    // Never split a surrogate pair: half of one is text the answer could not carry as UTF-8.
    if (/[\ud800-\udbff]/.test(joined.charAt(cut - 1))) cut -= 1;
    joined = `${joined.slice(0, cut)}…`;
  }
  return { path: joined, message };
}

/** The first MAX_ISSUES of `total` issues found (`first` holds at least those), plus a count of the rest. */
export function boundedIssues(first: readonly Issue[], total = first.length): Issue[] {
  const listed = first.slice(0, MAX_ISSUES);
  if (total <= listed.length) return listed;
  const rest = total - listed.length;
  return [
    ...listed,
    {
      path: "",
      message: `${rest} more ${rest === 1 ? "issue" : "issues"} not listed (only the first ${MAX_ISSUES} are)`,
    },
  ];
}

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string = ERRORS[code].message,
    readonly issues?: Issue[],
  ) {
    super(message);
    this.name = "ApiError";
    this.status = ERRORS[code].status;
  }

  toJSON() {
    return this.issues
      ? { error: this.message, code: this.code, issues: this.issues }
      : { error: this.message, code: this.code };
  }
}
