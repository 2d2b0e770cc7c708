import type { ApiError } from "@/lib/api/errors";

/** Every API response is JSON and never cached (spec: Cache-Control: no-store). */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return Response.json(body, {
    status,
    headers: { "Cache-Control": "no-store", ...headers },
  });
}

/** The documented error body, with the request's id to quote to the operator. */
export function errorResponse(error: ApiError, requestId: string, headers?: Record<string, string>): Response {
  return json({ ...error.toJSON(), requestId }, error.status, headers);
}

/** The entity tag of a version of a resource: strong, quoted (RFC 9110 8.8.3). */
export function entityTag(version: string): string {
  return `"${version}"`;
}

/**
 * 304 Not Modified, without a body, when the request's If-None-Match names `etag` or is `*` (RFC 9110 13.1.2: weak
 * comparison, so `W/"…"` matches too); else null. Still no-store: the caller keeps its own copy.
 */
export function notModified(request: Request, etag: string): Response | null {
  const condition = request.headers.get("if-none-match");
  if (condition === null) return null;
  const tags = condition.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
  if (!tags.includes("*") && !tags.includes(etag)) return null;
  return new Response(null, { status: 304, headers: { "Cache-Control": "no-store", ETag: etag } });
}
