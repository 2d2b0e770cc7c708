import { classifyFailure } from "@/lib/db/failures";
import { configuredKeys, type MatchedKey } from "@/lib/api/auth";
import type { ErrorCode } from "@/lib/api/errors";
import { logLine } from "@/lib/log-line.mjs";

/** LEADS_ACCESS_LOG=off turns the access log off (hosts that log at their proxy); read at start. */
const ACCESS_LOG = process.env.LEADS_ACCESS_LOG !== "off";

export interface Access {
  requestId: string;
  method: string;
  /** The path only: a query string may hold a misplaced key (and a path segment holding a key is redacted). */
  path: string;
  status: number;
  /** The error code, or how the client went away (lib/api/route.ts). */
  code: ErrorCode | "client-closed" | "request-timeout" | undefined;
  startedAt: number;
  key: MatchedKey | undefined;
}

/**
 * One JSON line per request on stdout, with only the fields below: never a key, a body, a query string or personal
 * data. One write per event-loop turn (docs/decisions.md, "The access log is written once per event-loop turn").
 */
export function logAccess(access: Access): void {
  if (!ACCESS_LOG) return;
  const durationMs = Math.round((performance.now() - access.startedAt) * 100) / 100;
  if (pending.lines === "") setImmediate(write, pending);
  pending.lines += `${JSON.stringify({
    time: new Date().toISOString(),
    level: "info",
    msg: "request",
    requestId: access.requestId,
    method: access.method,
    path: withoutKeys(access.path),
    status: access.status,
    code: access.code,
    durationMs,
    key: access.key,
  })}\n`;
}

/** Shown instead of a path segment that holds a configured key. */
const REDACTED = "[redacted]";

/**
 * The path with every segment that holds a configured key (as sent or percent-decoded) replaced by REDACTED: a key
 * pasted into the URL (GET /api/leads/<key>) must not reach the log. A path without one is returned as it is.
 */
export function withoutKeys(path: string): string {
  const keys = configuredKeys();
  const decoded = path.includes("%") ? percentDecoded(path) : path;
  if (!keys.some((key) => decoded.includes(key) || path.includes(key))) return path;
  const holdsKey = (segment: string) =>
    keys.some((key) => segment.includes(key) || percentDecoded(segment).includes(key));
  const redacted = path
    .split("/")
    .map((segment) => (holdsKey(segment) ? REDACTED : segment))
    .join("/");
  // A key with a slash in it spans segments: then nothing of the path is shown.
  return keys.some((key) => percentDecoded(redacted).includes(key)) ? REDACTED : redacted;
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Lines not yet written: at most one event-loop turn's, and written on exit too. One buffer per
 * process, under a registered symbol: Next's build can give each route its own copy of this module.
 */
interface Pending {
  lines: string;
}
const PENDING = Symbol.for("lead-intake-service.access-log");
const globalForLog = globalThis as typeof globalThis & { [PENDING]?: Pending };
const pending = (globalForLog[PENDING] ??= writtenOnExit({ lines: "" }));

function writtenOnExit(buffer: Pending): Pending {
  process.once("exit", () => write(buffer));
  return buffer;
}

function write(buffer: Pending): void {
  if (buffer.lines === "") return;
  process.stdout.write(buffer.lines);
  buffer.lines = "";
}

/**
 * An unexpected failure (answered 500 INTERNAL_ERROR), on stderr, by kind only: its
 * message could hold SQL or a lead's personal data.
 */
export function logFailure(requestId: string, method: string, path: string, error: unknown): void {
  const { name } = (error ?? {}) as { name?: unknown };
  logLine("error", "request failed", {
    requestId,
    method,
    path: withoutKeys(path),
    error: typeof name === "string" ? name : typeof error,
    ...classifyFailure(error),
  });
}

/** The limiter's storage failed and the request passed unlimited (lib/api/rate-limit.ts), on stderr, by kind only. */
export function logRateLimitFailure(requestId: string, operation: string, error: unknown): void {
  logLine("error", "rate limit not counted", { requestId, operation, ...classifyFailure(error) });
}
