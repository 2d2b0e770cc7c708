import { json } from "@/lib/api/response";
import { publicRoute, routeMethods } from "@/lib/api/route";

/**
 * Liveness: the process answers, touching nothing external, so a database outage never makes a supervisor restart
 * a process that would recover by itself. Documented in lib/openapi/health/live.ts.
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: publicRoute(async () => json({ status: "ok" })),
});
