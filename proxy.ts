import type { NextRequest } from "next/server";
import METHODS_BY_PATH from "@/lib/api/methods.json";
import { methodNotAllowed, notFoundResponse, ROUTED_METHODS } from "@/lib/api/route";

/**
 * Next answers methods outside ROUTED_METHODS (QUERY, PROPFIND, LOCK, MKCOL...)
 * with an empty 400 before any route handler runs; this proxy sees them first and
 * answers them as the routes answer PUT or DELETE: JSON 405 with Allow, or 404 on
 * an unknown path. Every routed method passes through after one Set lookup.
 * (TRACE never reaches even the proxy: scripts/trace-guard.mjs answers it.)
 */
const ROUTED = new Set<string>(ROUTED_METHODS);
const ALLOW: Record<string, readonly string[] | undefined> = METHODS_BY_PATH;

export function proxy(request: NextRequest): Response | undefined {
  if (ROUTED.has(request.method)) return undefined;
  const allow = ALLOW[request.nextUrl.pathname];
  return allow ? methodNotAllowed(request.method, allow) : notFoundResponse();
}

export const config = { matcher: ["/api", "/api/:path*"] };
