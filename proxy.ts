import { NextResponse, type NextRequest } from "next/server";
import { DOCUMENT_HEADERS, docsPageHeaders } from "@/lib/openapi/docs-headers";

/**
 * Next's proxy (it runs before routes and public files), for the two public documentation paths only (the matcher):
 * their security headers (lib/openapi/docs-headers.ts). /docs gets a fresh nonce per request, which Next puts on its
 * own inline scripts because the page's request carries the policy too.
 */
export function proxy(request: NextRequest): NextResponse {
  if (request.nextUrl.pathname !== "/docs") return withHeaders(NextResponse.next(), DOCUMENT_HEADERS);
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const headers = docsPageHeaders(nonce);
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("Content-Security-Policy", headers["Content-Security-Policy"]);
  return withHeaders(NextResponse.next({ request: { headers: requestHeaders } }), headers);
}

function withHeaders(response: NextResponse, headers: Record<string, string>): NextResponse {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export const config = { matcher: ["/docs", "/openapi.json"] };
