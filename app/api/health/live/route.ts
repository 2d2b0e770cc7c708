import { json } from "@/lib/api/response";
import { publicRoute, routeMethods } from "@/lib/api/route";

/**
 * Liveness: the process answers. Touches nothing external, so a database outage
 * never makes a supervisor restart a process that would recover by itself.
 *
 * @openapi
 * /api/health/live:
 *   get:
 *     operationId: live
 *     tags: [Health]
 *     summary: Liveness
 *     security: []
 *     description: |
 *       200 whenever the process can answer. Touches nothing external (not the database). No key needed.
 *
 *       ```sh
 *       curl "$BASE_URL/api/health/live"
 *       ```
 *     responses:
 *       "200":
 *         description: The process answers.
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/HealthStatus" }
 *             examples: { ok: { summary: Serving, value: { status: ok } } }
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: publicRoute(async () => json({ status: "ok" })),
});
