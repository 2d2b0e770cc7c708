// Bounds of one HTTP request to the `next start` server, applied by
// lib/runtime/next-server-preload.mjs (docs/operating.md, "Timeouts").

/** A whole request (headers and body) must arrive within this; then Node answers 408 and closes. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Headers alone within this (Node's default is 60 s; it may not exceed the request timeout). */
export const HEADERS_TIMEOUT_MS = 20_000;
/** How often Node looks for requests over those limits (its default, 30 s, would let one live up to 60 s). */
export const CHECK_INTERVAL_MS = 1_000;
/**
 * A response whose pending bytes make no progress (the client reads none of them) for this long: its connection is
 * destroyed, pipelined requests and all. The same bound as receiving a request: a client that takes none of its
 * answer for 30 s is treated like one that sends none of its request (nginx's send_timeout, the same rule, is 60 s).
 */
export const WRITE_TIMEOUT_MS = 30_000;
