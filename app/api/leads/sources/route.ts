import { json } from "@/lib/api/response";
import { apiRoute, routeMethods } from "@/lib/api/route";
import { database } from "@/lib/db/client";
import { listSources } from "@/lib/leads/sources";

/**
 * @openapi
 * /api/leads/sources:
 *   get:
 *     operationId: listSources
 *     tags: [Sources]
 *     summary: List source accounts
 *     x-aliases: [/api/leads/ads, /api/sources]
 *     description: |
 *       All source accounts, and the subset of type `ads`. Configured default sources are listed even before they have
 *       leads. Listing never creates an account and never contacts an external ad platform. No parameters.
 *
 *       ```sh
 *       curl -H "Authorization: Bearer $LEADS_API_KEY" \
 *         "$BASE_URL/api/leads/sources"
 *       ```
 *     responses:
 *       "200":
 *         description: The source accounts.
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/SourcesResponse" }
 *             examples: { sources: { $ref: "#/components/examples/sources" } }
 *     x-errors: [UNAUTHORIZED, INTERNAL_ERROR, API_NOT_CONFIGURED]
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: apiRoute(async () => json(await listSources(database()))),
});
