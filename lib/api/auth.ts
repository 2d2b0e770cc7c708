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
  if (!key) throw new ApiError("API_NOT_CONFIGURED");
  const presented = BEARER.exec(request.headers.get("authorization") ?? "")?.[1];
  if (presented === undefined || !sameSecret(presented, key)) {
    throw new ApiError("UNAUTHORIZED");
  }
}

function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}
