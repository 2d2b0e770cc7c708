import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError } from "./errors";

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Spec "Authentication": 503 API_NOT_CONFIGURED without a server key, 401 without
 * the right `Authorization: Bearer <key>` header. The key is compared in constant
 * time (both sides hashed to equal length first); the URL is never looked at.
 */
export function authenticate(request: Request): void {
  const key = process.env.LEADS_API_KEY;
  if (!key) throw new ApiError("API_NOT_CONFIGURED", "The API key is not configured on the server");
  const presented = BEARER.exec(request.headers.get("authorization") ?? "")?.[1];
  if (presented === undefined || !sameSecret(presented, key)) {
    throw new ApiError("UNAUTHORIZED", "Missing or incorrect bearer key");
  }
}

function sameSecret(presented: string, key: string): boolean {
  return timingSafeEqual(digest(presented), keyDigest(key));
}

// The server key's digest is computed once per key value, not per request (6 µs a SHA-256 here).
let server: { secret: string; digest: Buffer } | undefined;

function keyDigest(secret: string): Buffer {
  if (server?.secret !== secret) server = { secret, digest: digest(secret) };
  return server.digest;
}

function digest(secret: string): Buffer {
  return createHash("sha256").update(secret).digest();
}
