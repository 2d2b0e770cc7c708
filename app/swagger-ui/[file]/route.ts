import { ASSET_HEADERS } from "@/lib/openapi/docs-headers";
import { respond, swaggerUiFile } from "@/lib/openapi/served";
import { otherThanGet } from "@/lib/api/route";

/** Swagger UI's stylesheet and script for /docs, from the installed swagger-ui-dist; any other name is 404. */
export async function GET(request: Request, { params }: { params: Promise<{ file: string }> }): Promise<Response> {
  const { file } = await params;
  const served = swaggerUiFile(file);
  if (!served) return new Response("Not found", { status: 404, headers: ASSET_HEADERS });
  return respond(request, await served, ASSET_HEADERS);
}

// Every other method, TRACE included (lib/preload/method-guard.mjs), answers the API's JSON 405.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherThanGet;
