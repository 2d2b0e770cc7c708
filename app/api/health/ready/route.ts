import { json } from "@/lib/api/response";
import { publicRoute, routeMethods } from "@/lib/api/route";
import { checkReadiness } from "@/lib/startup/service";

/**
 * Readiness: 200 once the key and settings are usable, the start-up work is done and the database answers a trivial
 * query; 503 with the reason otherwise, within 2 s (database down, unreachable or frozen).
 *
 * Documented in lib/openapi/health/ready.ts.
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: publicRoute(async () => {
    const reason = await checkReadiness();
    return reason ? json({ status: "unavailable", reason }, 503) : json({ status: "ok" });
  }),
});
