import { operation, ref } from "@/lib/openapi/operation";

export const listAgents = operation({
  path: "/api/leads/agents",
  method: "get",
  operationId: "listAgents",
  tags: ["Agents"],
  summary: "List assignable sales agents",
  aliases: ["/api/agents"],
  description:
    "The users a lead can be assigned to. On the normal data layout only users whose access levels contain sales are " +
    "listed; on a legacy layout without an access-level column that filter cannot be applied. An empty list means no " +
    "eligible users exist: leave leads unassigned or contact the administrator. No parameters.",
  curl: {},
  responses: {
    200: {
      description: "The assignable agents.",
      content: {
        "application/json": {
          schema: ref("schemas/AgentsResponse"),
          examples: { agents: ref("examples/agents"), none: ref("examples/noAgents") },
        },
      },
    },
  },
  errors: ["UNAUTHORIZED", "RATE_LIMITED", "INTERNAL_ERROR", "API_NOT_CONFIGURED", "READS_BUSY"],
});
