import { classifyFailure } from "@/lib/db/failures";
import type { MatchedKey } from "./auth";
import type { ErrorCode } from "./errors";

/** LEADS_ACCESS_LOG=off turns the access log off (hosts that log at their proxy); read at start. */
const ACCESS_LOG = process.env.LEADS_ACCESS_LOG !== "off";

export interface Access {
  requestId: string;
  method: string;
  /** The path only: a query string may hold a misplaced key. */
  path: string;
  status: number;
  code: ErrorCode | undefined;
  startedAt: number;
  key: MatchedKey | undefined;
}

/**
 * One JSON line per request on stdout. Never a key, a body, a query string or a
 * lead's personal data: only the fields below.
 */
export function logAccess(access: Access): void {
  if (!ACCESS_LOG) return;
  const durationMs = Math.round((performance.now() - access.startedAt) * 100) / 100;
  process.stdout.write(
    `${JSON.stringify({
      time: new Date().toISOString(),
      level: "info",
      msg: "request",
      requestId: access.requestId,
      method: access.method,
      path: access.path,
      status: access.status,
      code: access.code,
      durationMs,
      key: access.key,
    })}\n`,
  );
}

/**
 * An unexpected failure (answered 500 INTERNAL_ERROR), on stderr, by kind only: its
 * message could hold SQL or a lead's personal data.
 */
export function logFailure(requestId: string, method: string, path: string, error: unknown): void {
  const { name } = (error ?? {}) as { name?: unknown };
  console.error(
    JSON.stringify({
      time: new Date().toISOString(),
      level: "error",
      msg: "request failed",
      requestId,
      method,
      path,
      error: typeof name === "string" ? name : typeof error,
      ...classifyFailure(error),
    }),
  );
}
