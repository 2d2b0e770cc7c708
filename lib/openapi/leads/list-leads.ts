import { operation, ref } from "@/lib/openapi/operation";

export const listLeads = operation({
  path: "/api/leads",
  method: "get",
  operationId: "listLeads",
  tags: ["Leads"],
  summary: "List current leads of source accounts",
  description:
    "Current leads whose Introducer is a source account, newest first (descending `referralId`), paginated. " +
    "Person-referral leads are excluded even though POST accepts them. Each parameter may be given at most once; unknown " +
    "or repeated parameters and blank, negative, fractional or non-decimal values are 400 `INVALID_INPUT`. An unknown " +
    "source gives 200 with an empty page; the query never creates a source. `pagination.total` counts all matching " +
    "records; an offset beyond the end gives an empty page with the same total. Page by increasing `offset` by `limit` " +
    "until `hasMore` is false, and deduplicate by `referralId` (data is current, not a snapshot).",
  curl: { query: "?referrer=Facebook%20Ads&limit=100&offset=0" },
  parameters: [ref("parameters/referrer"), ref("parameters/limit"), ref("parameters/offset")],
  responses: {
    200: {
      description: "A page of leads.",
      content: {
        "application/json": {
          schema: ref("schemas/ListLeadsResponse"),
          examples: { page: ref("examples/leadsPage"), unknownSource: ref("examples/emptyPage") },
        },
      },
    },
  },
  errors: ["INVALID_INPUT", "UNAUTHORIZED", "RATE_LIMITED", "INTERNAL_ERROR", "API_NOT_CONFIGURED", "READS_BUSY"],
});
