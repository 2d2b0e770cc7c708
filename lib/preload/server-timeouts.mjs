// Bounds of one HTTP request to the `next start` server, applied by
// lib/preload/next-server-preload.mjs (docs/operating.md, "Timeouts").

/** A whole request (headers and body) must arrive within this; then Node answers 408 and closes. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Headers alone within this (Node's default is 60 s; it may not exceed the request timeout). */
export const HEADERS_TIMEOUT_MS = 20_000;
/** How often Node looks for requests over those limits (its default, 30 s, would let one live up to 60 s). */
export const CHECK_INTERVAL_MS = 1_000;
/**
 * A response whose pending bytes make no progress for this long has its connection destroyed: a client that takes
 * none of its answer is treated like one that sends none of its request (docs/decisions.md, "Request timeout").
 */
export const WRITE_TIMEOUT_MS = 30_000;
/**
 * An idle kept-alive connection is closed after this (Node's default is 5 s): 2 s past the longest Retry-After of a
 * refused creation (LONGEST_RETRY_AFTER_S, lib/db/creation-budget.ts), so that a caller coming back when told finds
 * its connection open.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 10_000;
