import { operation, ref } from "@/lib/openapi/operation";

export const listSources = operation({
  path: "/api/leads/sources",
  method: "get",
  operationId: "listSources",
  tags: ["Sources"],
  summary: "List source accounts",
  aliases: ["/api/leads/ads", "/api/sources"],
  description:
    "All source accounts, and the subset of type `ads`. Configured default sources are listed even before they have " +
    "leads. Listing never creates an account and never contacts an external ad platform. No parameters.",
  curl: {},
  responses: {
    200: {
      description: "The source accounts.",
      content: { "application/json": { schema: ref("schemas/SourcesResponse"), examples: { sources: ref("examples/sources") } } },
    },
  },
  errors: ["UNAUTHORIZED", "INTERNAL_ERROR", "API_NOT_CONFIGURED", "READS_BUSY"],
});
