import { apiConfigured } from "@/lib/api/auth";
import { json } from "@/lib/api/response";
import { publicRoute, routeMethods } from "@/lib/api/route";
import { checkReadiness } from "@/lib/startup/service";

/**
 * Readiness: 200 once the key, settings, start-up work and database are usable; 503 with the reason otherwise.
 * Documented in lib/openapi/health/ready.ts.
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: publicRoute(async () => {
    if (!apiConfigured()) return json({ status: "unavailable", reason: "not-configured" }, 503);
    if (!(await checkReadiness())) return json({ status: "unavailable", reason: "database-not-ready" }, 503);
    return json({ status: "ok" });
  }),
});
