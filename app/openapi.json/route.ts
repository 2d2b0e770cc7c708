import { DOCUMENT_HEADERS } from "@/lib/openapi/docs-headers";
import { respond, servedDocument } from "@/lib/openapi/served";

/** The OpenAPI document, public, with its own security and cache headers (lib/openapi/docs-headers.ts). */
export function GET(request: Request): Response {
  return respond(request, servedDocument(), DOCUMENT_HEADERS);
}
