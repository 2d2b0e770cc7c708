import { DOCUMENT_HEADERS } from "@/lib/openapi/docs-headers";
import { respond, servedDocument } from "@/lib/openapi/served";
import { otherThanGet } from "@/lib/api/route";

/** The OpenAPI document, public, with its own security and cache headers (lib/openapi/docs-headers.ts). */
export function GET(request: Request): Response {
  return respond(request, servedDocument(), DOCUMENT_HEADERS);
}

// Every other method, TRACE included (lib/preload/method-guard.mjs), answers the API's JSON 405.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherThanGet;
