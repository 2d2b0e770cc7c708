import { ref } from "@/lib/openapi/operation";

/** The body of both health checks: `ok`, or `unavailable` from the readiness check. */
export function healthStatus(description: string, name: string, summary: string, status: "ok" | "unavailable") {
  return {
    description,
    content: {
      "application/json": { schema: ref("schemas/HealthStatus"), examples: { [name]: { summary, value: { status } } } },
    },
  };
}

/** The answer of a serving process, the same for both checks. */
export const serving = (description: string) => healthStatus(description, "ok", "Serving", "ok");
