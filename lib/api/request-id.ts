import { randomUUID } from "node:crypto";

/** A caller's own X-Request-Id is kept when it is 1 to 128 of these characters. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's id (docs/operating.md, "Response headers"): the caller's valid X-Request-Id,
 * else a new UUID. It is echoed in X-Request-Id, in error bodies and in every log line.
 */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given !== null && VALID_REQUEST_ID.test(given) ? given : randomUUID();
}
