import { z } from "zod";

/**
 * The two health endpoints (README, "Operating the service"): public, outside the
 * lead contract's operations, each with one fixed JSON body.
 */
export const healthStatus = z
  .strictObject({ status: z.enum(["ok", "unavailable"]) })
  .describe("`ok`, or `unavailable` with 503 from the readiness check.");

type Json = Record<string, any>;

const ok = { ok: { summary: "Serving", value: { status: "ok" } } };
const unavailable = { unavailable: { summary: "Database not ready", value: { status: "unavailable" } } };

function body(examples: Json): Json {
  return { "application/json": { schema: { $ref: "#/components/schemas/HealthStatus" }, examples } };
}

/** The health paths, with the headers every response carries. */
export function healthPaths(headers: Json): Json {
  const curl = (path: string) => `\n\n\`\`\`sh\ncurl "$BASE_URL${path}"\n\`\`\``;
  return {
    "/api/health/live": {
      get: {
        tags: ["Health"],
        summary: "Liveness",
        description: `200 whenever the process can answer. Touches nothing external (not the database). No key needed.${curl("/api/health/live")}`,
        operationId: "live",
        security: [],
        responses: { 200: { description: "The process answers.", headers, content: body(ok) } },
      },
    },
    "/api/health/ready": {
      get: {
        tags: ["Health"],
        summary: "Readiness",
        description: `200 when the database answers a trivial query and the migrations are applied; otherwise 503 within 2 seconds (database down, unreachable or frozen). No key needed; reveals nothing else.${curl("/api/health/ready")}`,
        operationId: "ready",
        security: [],
        responses: {
          200: { description: "Ready to serve the API.", headers, content: body(ok) },
          503: { description: "Not ready: send no traffic; it recovers by itself once the database is back.", headers, content: body(unavailable) },
        },
      },
    },
  };
}
