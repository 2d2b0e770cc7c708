import { ref } from "@/lib/openapi/operation";

type HealthBody = { status: "ok" } | { status: "unavailable"; reason: "not-configured" | "database-not-ready" };

/** The body of both health checks, with its examples by name: `ok`, or `unavailable` from the readiness check. */
export function healthStatus(description: string, examples: Record<string, { summary: string; value: HealthBody }>) {
  return { description, content: { "application/json": { schema: ref("schemas/HealthStatus"), examples } } };
}

/** The answer of a serving process, the same for both checks. */
export const serving = (description: string) =>
  healthStatus(description, { ok: { summary: "Serving", value: { status: "ok" } } });
