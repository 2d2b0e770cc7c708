import { entityTag, ifNoneMatch, json, notModified } from "@/lib/api/response";
import { apiRoute, routeMethods } from "@/lib/api/route";
import { database } from "@/lib/db/prisma";
import { reading } from "@/lib/db/read-budget";
import { listSources, sourceListVersion } from "@/lib/leads/sources/list-sources";

// Documented in lib/openapi/sources/list-sources.ts.
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: apiRoute(async (request) => {
    const db = database();
    const tags = ifNoneMatch(request);
    return reading(db, async () => {
      if (tags) {
        const unchanged = notModified(tags, entityTag(await sourceListVersion(db)));
        if (unchanged) return unchanged;
      }
      const { version, ...list } = await listSources(db);
      return json(list, 200, { ETag: entityTag(version) });
    });
  }),
});
