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
