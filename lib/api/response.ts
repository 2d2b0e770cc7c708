import { ApiError, issueAt } from "@/lib/api/errors";
import { tooLong } from "@/lib/leads/messages";

/** Longest `If-None-Match` read: a caller has one list, so a few tags; a longer one is 400 INVALID_INPUT. */
export const MAX_IF_NONE_MATCH_LENGTH = 1024;

/**
 * Every API response is JSON, never cached (spec: Cache-Control: no-store) and never sniffed as another type (in a
 * host too, whose next.config is its own).
 */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return Response.json(body, { status, headers: { ...UNCACHED, ...headers } });
}

/** The headers of every API response but its content type. */
export const UNCACHED: Readonly<Record<string, string>> = {
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
};

/** The documented error body, with the request's id to quote to the operator. */
export function errorBody(error: ApiError, requestId: string): object {
  return { ...error.toJSON(), requestId };
}

export function errorResponse(error: ApiError, requestId: string, headers?: Record<string, string>): Response {
  return json(errorBody(error, requestId), error.status, headers);
}

/** The entity tag of a version of a resource: strong, quoted (RFC 9110 8.8.3). */
export function entityTag(version: string): string {
  return `"${version}"`;
}

/**
 * The entity tags of the request's If-None-Match, compared weakly (RFC 9110 13.1.2: `W/"…"` matches too), or null
 * without the header; checked before any work, so an overlong one changes and costs nothing.
 */
export function ifNoneMatch(request: Request): string[] | null {
  const condition = request.headers.get("if-none-match");
  if (condition === null) return null;
  if (condition.length > MAX_IF_NONE_MATCH_LENGTH) {
    throw new ApiError("INVALID_INPUT", "Invalid headers", [
      issueAt(["If-None-Match"], tooLong(MAX_IF_NONE_MATCH_LENGTH)),
    ]);
  }
  return condition.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
}

/**
 * 304 Not Modified, without a body, when `tags` name `etag` or are `*`; else null. Still no-store: the caller keeps its
 * own copy.
 */
export function notModified(tags: string[], etag: string): Response | null {
  if (!tags.includes("*") && !tags.includes(etag)) return null;
  return new Response(null, {
    status: 304,
    headers: { ...UNCACHED, ETag: etag },
  });
}
