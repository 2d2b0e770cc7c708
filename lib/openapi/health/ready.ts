import { healthStatus, serving } from "@/lib/openapi/health/status";
import { operation } from "@/lib/openapi/operation";

export const ready = operation({
  path: "/api/health/ready",
  method: "get",
  operationId: "ready",
  tags: ["Health"],
  summary: "Readiness",
  security: [],
  description:
    "200 when the database answers a trivial query and the migrations are applied; otherwise 503 within 2 seconds " +
    "(database down, unreachable or frozen, or a configured rate limit its role cannot count). No key needed; " +
    "reveals nothing else.",
  curl: {},
  responses: {
    200: serving("Ready to serve the API."),
    503: healthStatus(
      "Not ready: send no traffic; it recovers by itself once the database is back.",
      "unavailable",
      "Database not ready",
      "unavailable",
    ),
  },
});
