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
    "leads. Listing never creates an account and never contacts an external ad platform. No query parameters.\n\n" +
    "Every 200 carries an `ETag`, the version of the list. A caller that keeps the list can send that tag back in " +
    "`If-None-Match`: while the list is unchanged the answer is 304 without a body, which costs the server one small " +
    "read whatever the number of sources. Without the header the answer is always the whole list.",
  parameters: [ref("parameters/If-None-Match")],
  curl: {},
  responses: {
    200: {
      description: "The source accounts.",
      headers: { ETag: ref("headers/ETag") },
      content: {
        "application/json": { schema: ref("schemas/SourcesResponse"), examples: { sources: ref("examples/sources") } },
      },
    },
    304: {
      description: "The list is unchanged since the `ETag` sent in `If-None-Match`: no body; keep the list you have.",
      headers: { ETag: ref("headers/ETag") },
    },
  },
  errors: ["INVALID_INPUT", "UNAUTHORIZED", "RATE_LIMITED", "INTERNAL_ERROR", "API_NOT_CONFIGURED", "READS_BUSY"],
  invalidIn: "header",
});
