import type { ApiError } from "./errors";

/** Every API response is JSON and never cached (spec: Cache-Control: no-store). */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return Response.json(body, {
    status,
    headers: { "Cache-Control": "no-store", ...headers },
  });
}

export function errorResponse(error: ApiError, headers?: Record<string, string>): Response {
  return json(error.toJSON(), error.status, headers);
}
