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
    "200 when the server's API key and settings are usable, the database answers a trivial query and the migrations " +
    "are applied; otherwise 503 within 2 seconds, with the reason: `not-configured` (the key missing or too short, " +
    "or a setting that cannot be read) or `database-not-ready` (database down, unreachable or frozen, or a configured rate limit its role " +
    "cannot count). No key needed; reveals nothing else.",
  curl: {},
  responses: {
    200: serving("Ready to serve the API."),
    503: healthStatus(
      "Not ready: send no traffic. `database-not-ready` recovers by itself once the database is back; " +
        "`not-configured` once the server is restarted with a usable key and settings.",
      {
        "database-not-ready": {
          summary: "Database not ready",
          value: { status: "unavailable", reason: "database-not-ready" },
        },
        "not-configured": {
          summary: "API key or a setting not usable",
          value: { status: "unavailable", reason: "not-configured" },
        },
      },
    ),
  },
});
