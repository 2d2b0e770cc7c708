import { json } from "@/lib/api/response";
import { apiRoute, routeMethods } from "@/lib/api/route";
import { database } from "@/lib/db/client";
import { listAgents } from "@/lib/leads/agents";

/**
 * @openapi
 * /api/leads/agents:
 *   get:
 *     operationId: listAgents
 *     tags: [Agents]
 *     summary: List assignable sales agents
 *     x-aliases: [/api/agents]
 *     description: |
 *       The users a lead can be assigned to. On the normal data layout only users whose access levels contain sales are
 *       listed; on a legacy layout without an access-level column that filter cannot be applied. An empty list means no
 *       eligible users exist: leave leads unassigned or contact the administrator. No parameters.
 *
 *       ```sh
 *       curl -H "Authorization: Bearer $LEADS_API_KEY" \
 *         "$BASE_URL/api/leads/agents"
 *       ```
 *     responses:
 *       "200":
 *         description: The assignable agents.
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/AgentsResponse" }
 *             examples:
 *               agents: { $ref: "#/components/examples/agents" }
 *               none: { $ref: "#/components/examples/noAgents" }
 *     x-errors: [UNAUTHORIZED, INTERNAL_ERROR, API_NOT_CONFIGURED]
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: apiRoute(async () => json({ agents: await listAgents(database()) })),
});
