import { randomUUID } from "node:crypto";
import { isConfiguredKey } from "@/lib/api/auth";

/** A caller's own X-Request-Id is kept when it is 1 to 128 of these characters. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's id (docs/operating.md, "Response headers"): the caller's valid X-Request-Id,
 * else a new UUID. It is echoed in X-Request-Id, in error bodies and in every log line, so an id
 * that is a configured key (a key pasted into the wrong header passes the format) is replaced too.
 */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given !== null && VALID_REQUEST_ID.test(given) && !isConfiguredKey(given) ? given : randomUUID();
}
