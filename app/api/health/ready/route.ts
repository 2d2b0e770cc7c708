import { json } from "@/lib/api/response";
import { publicRoute, routeMethods } from "@/lib/api/route";
import { checkReadiness } from "@/lib/startup/service";

/**
 * Readiness: 200 once the start-up work is done and the database answers a trivial
 * query; 503 within 2 s when it does not (down, unreachable or frozen).
 *
 * @openapi
 * /api/health/ready:
 *   get:
 *     operationId: ready
 *     tags: [Health]
 *     summary: Readiness
 *     security: []
 *     description: |
 *       200 when the database answers a trivial query and the migrations are applied; otherwise 503 within 2 seconds
 *       (database down, unreachable or frozen). No key needed; reveals nothing else.
 *
 *       ```sh
 *       curl "$BASE_URL/api/health/ready"
 *       ```
 *     responses:
 *       "200":
 *         description: Ready to serve the API.
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/HealthStatus" }
 *             examples: { ok: { summary: Serving, value: { status: ok } } }
 *       "503":
 *         description: "Not ready: send no traffic; it recovers by itself once the database is back."
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/HealthStatus" }
 *             examples: { unavailable: { summary: Database not ready, value: { status: unavailable } } }
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: publicRoute(async () => ((await checkReadiness()) ? json({ status: "ok" }) : json({ status: "unavailable" }, 503))),
});
