import { serving } from "@/lib/openapi/health/status";
import { operation } from "@/lib/openapi/operation";

export const live = operation({
  path: "/api/health/live",
  method: "get",
  operationId: "live",
  tags: ["Health"],
  summary: "Liveness",
  security: [],
  description: "200 whenever the process can answer. Touches nothing external (not the database). No key needed.",
  curl: {},
  responses: { 200: serving("The process answers.") },
});
