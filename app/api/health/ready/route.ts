import { json } from "@/lib/api/response";
import { publicRoute, routeMethods } from "@/lib/api/route";
import { checkReadiness } from "@/lib/startup/service";

/**
 * Readiness: 200 once the start-up work is done and the database answers a trivial
 * query; 503 within 2 s when it does not (down, unreachable or frozen).
 *
 * Documented in lib/openapi/health/ready.ts.
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: publicRoute(async () =>
    (await checkReadiness()) ? json({ status: "ok" }) : json({ status: "unavailable" }, 503),
  ),
});
