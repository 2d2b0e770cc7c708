import { json } from "@/lib/api/response";
import { apiRoute, routeMethods } from "@/lib/api/route";
import { database } from "@/lib/db/prisma";
import { listSources } from "@/lib/leads/sources/list-sources";

// Documented in lib/openapi/sources/list-sources.ts.
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: apiRoute(async () => json(await listSources(database()))),
});
