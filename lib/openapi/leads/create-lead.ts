import { examples } from "@/lib/openapi/examples";
import { operation, ref } from "@/lib/openapi/operation";

export const createLead = operation({
  path: "/api/leads",
  method: "post",
  operationId: "createLead",
  tags: ["Leads"],
  summary: "Create a lead",
  description:
    "Creates a customer lead and its workflow record, attributed to an Introducer (`referrer`) and optionally assigned " +
    "to a sales user. Creation is atomic: the source account (if new), the lead, the workflow record and the audit entry " +
    "are saved together; a success response means all were saved. Not idempotent: never replay automatically after an " +
    "uncertain outcome.",
  curl: { body: examples.minimalLead.value },
  requestBody: {
    required: true,
    description: [
      "A JSON object (`Content-Type: application/json`, at most 1 MiB). Unknown properties are rejected, and optional " +
        "properties must be omitted, never `null`. Each field's own rules are in its description.",
      "",
      "1. Minimum body: `leadName`, `leadMobileNumber`, `referrer`. It yields an unassigned lead with status `Pending`.",
      "2. `referrer` as a string (trimmed, repeated spaces normalised) is first resolved as an existing or configured source " +
        "name (case and repeated spaces ignored) or a returned source ID; otherwise it is the name of a new source, whose " +
        "account is created on the first successful POST and reused by later case or spacing variants.",
      "3. `referrer` as `{customerId}` (only that property) names an existing person or source account; an unknown ID is " +
        "422 `INVALID_REFERRER`. This form creates no account.",
      "4. A bare string is never a person: name an existing person with the object form. Do not invent source IDs: an " +
        "unknown string is a new source name.",
      "5. `assignedAgentId` must resolve to an existing user eligible for sales with a platform ID, else 422 " +
        "`INVALID_AGENT`; the response returns the platform ID. Creation sets the assigned agent only (the preferred-agent " +
        "field stays empty).",
      "6. `null` for any optional field, an empty `assignedAgentId` and unknown properties (such as `introducer`, " +
        "`assigned_agent`, `status`, `campaignId`) are 400 `INVALID_INPUT`.",
      "7. Not idempotent: each success creates a new lead customer and workflow record, even for a repeated phone number. " +
        "No idempotency keys, no deduplication.",
      "8. No messaging notification is sent.",
    ].join("\n"),
    content: {
      "application/json": {
        schema: ref("schemas/CreateLeadRequest"),
        examples: {
          minimal: ref("examples/minimalLead"),
          assigned: ref("examples/assignedLead"),
          personReferrer: ref("examples/personReferrerLead"),
        },
      },
    },
  },
  responses: {
    201: {
      description: "Created. `referrer.type` is `person` for a person Introducer, else `source`.",
      content: {
        "application/json": {
          schema: ref("schemas/CreateLeadResponse"),
          examples: { pending: ref("examples/pendingLead"), assigned: ref("examples/assignedPersonLead") },
        },
      },
      links: {
        listLeadsOfReferrer: {
          operationId: "listLeads",
          parameters: { referrer: "$response.body#/lead/referrer/customerId" },
          description: "The leads of the created lead's source (GET /api/leads lists source referrals only).",
        },
      },
    },
  },
  errors: [
    "INVALID_JSON",
    "INVALID_INPUT",
    "UNAUTHORIZED",
    "PAYLOAD_TOO_LARGE",
    "INVALID_CONTENT_TYPE",
    "INVALID_AGENT",
    "INVALID_REFERRER",
    "RATE_LIMITED",
    "CREATION_BUSY",
    "INTERNAL_ERROR",
    "API_NOT_CONFIGURED",
    "ASSIGNMENT_NOT_CONFIGURED",
  ],
});
