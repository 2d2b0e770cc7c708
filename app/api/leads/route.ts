import { readJsonBody } from "@/lib/api/body";
import { json } from "@/lib/api/response";
import { apiRoute, routeMethods } from "@/lib/api/route";
import { parseInput, parseQuery } from "@/lib/api/validation";
import { database } from "@/lib/db/client";
import { createLead } from "@/lib/leads/create-lead";
import { listLeads } from "@/lib/leads/list-leads";
import { createLeadBody, listLeadsQuery } from "@/lib/leads/schemas";

/**
 * @openapi
 * /api/leads:
 *   get:
 *     operationId: listLeads
 *     tags: [Leads]
 *     summary: List current leads of source accounts
 *     description: |
 *        Current leads whose Introducer is a source account, newest first (descending `referralId`), paginated.
 *        Person-referral leads are excluded even though POST accepts them. Each parameter may be given at most once; unknown
 *        or repeated parameters and blank, negative, fractional or non-decimal values are 400 `INVALID_INPUT`. An unknown
 *        source gives 200 with an empty page; the query never creates a source. `pagination.total` counts all matching
 *        records; an offset beyond the end gives an empty page with the same total. Page by increasing `offset` by `limit`
 *        until `hasMore` is false, and deduplicate by `referralId` (data is current, not a snapshot).
 *
 *        ```sh
 *        curl -H "Authorization: Bearer $LEADS_API_KEY" \
 *          "$BASE_URL/api/leads?referrer=Facebook%20Ads&limit=100&offset=0"
 *        ```
 *     parameters:
 *       - $ref: "#/components/parameters/referrer"
 *       - $ref: "#/components/parameters/limit"
 *       - $ref: "#/components/parameters/offset"
 *     responses:
 *       "200":
 *         description: A page of leads.
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/ListLeadsResponse" }
 *             examples:
 *               page: { $ref: "#/components/examples/leadsPage" }
 *               unknownSource: { $ref: "#/components/examples/emptyPage" }
 *     x-errors: [INVALID_INPUT, UNAUTHORIZED, INTERNAL_ERROR, API_NOT_CONFIGURED]
 *   post:
 *     operationId: createLead
 *     tags: [Leads]
 *     summary: Create a lead
 *     description: |
 *        Creates a customer lead and its workflow record, attributed to an Introducer (`referrer`) and optionally assigned
 *        to a sales user. Creation is atomic: the source account (if new), the lead, the workflow record and the audit entry
 *        are saved together; a success response means all were saved. Not idempotent: never replay automatically after an
 *        uncertain outcome.
 *
 *        ```sh
 *        curl -X POST -H "Authorization: Bearer $LEADS_API_KEY" \
 *          -H "Content-Type: application/json" \
 *          -d '{"leadName":"Aminah Binti Ali","leadMobileNumber":"012-345 6789","referrer":"Facebook Ads"}' \
 *          "$BASE_URL/api/leads"
 *        ```
 *     requestBody:
 *       required: true
 *       description: |
 *         A JSON object (`Content-Type: application/json`, at most 1 MiB). Unknown properties are rejected, and optional
 *         properties must be omitted, never `null`.
 *
 *         1. Minimum body: `leadName`, `leadMobileNumber`, `referrer`. It yields an unassigned lead with status `Pending`.
 *         2. Mobile: formatting characters are removed, a local prefix 0 or 1 becomes 60 (a leading +60 is accepted), and the
 *            result must be 60 followed by 9 to 11 digits. The response carries this canonical form (`012-345 6789` →
 *            `60123456789`).
 *         3. `referrer` as a string (trimmed, repeated spaces normalised) is first resolved as an existing or configured source
 *            name (case and repeated spaces ignored) or a returned source ID; otherwise it is the name of a new source, whose
 *            account is created on the first successful POST and reused by later case or spacing variants.
 *         4. `referrer` as `{customerId}` (only that property) names an existing person or source account; an unknown ID is
 *            422 `INVALID_REFERRER`. This form creates no account.
 *         5. A bare string is never a person: name an existing person with the object form. Do not invent source IDs: an
 *            unknown string is a new source name.
 *         6. `assignedAgentId` must resolve to an existing user eligible for sales with a platform ID, else 422
 *            `INVALID_AGENT`; the response returns the platform ID. Creation sets the assigned agent only (the preferred-agent
 *            field stays empty).
 *         7. `null` for any optional field, an empty `assignedAgentId` and unknown properties (such as `introducer`,
 *            `assigned_agent`, `status`, `campaignId`) are 400 `INVALID_INPUT`.
 *         8. Not idempotent: each success creates a new lead customer and workflow record, even for a repeated phone number.
 *            No idempotency keys, no deduplication.
 *         9. No messaging notification is sent.
 *       content:
 *         application/json:
 *           schema: { $ref: "#/components/schemas/CreateLeadRequest" }
 *           examples:
 *             minimal: { $ref: "#/components/examples/minimalLead" }
 *             assigned: { $ref: "#/components/examples/assignedLead" }
 *             personReferrer: { $ref: "#/components/examples/personReferrerLead" }
 *     responses:
 *       "201":
 *         description: Created. `referrer.type` is `person` for a person Introducer, else `source`.
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/CreateLeadResponse" }
 *             examples:
 *               pending: { $ref: "#/components/examples/pendingLead" }
 *               assigned: { $ref: "#/components/examples/assignedPersonLead" }
 *         links:
 *           listLeadsOfReferrer:
 *             operationId: listLeads
 *             parameters: { referrer: "$response.body#/lead/referrer/customerId" }
 *             description: The leads of the created lead's source (GET /api/leads lists source referrals only).
 *     x-errors:
 *       [INVALID_JSON, INVALID_INPUT, UNAUTHORIZED, PAYLOAD_TOO_LARGE, INVALID_CONTENT_TYPE, INVALID_AGENT,
 *        INVALID_REFERRER, INTERNAL_ERROR, API_NOT_CONFIGURED, ASSIGNMENT_NOT_CONFIGURED]
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: apiRoute(async (request) => {
    const query = parseQuery(listLeadsQuery, request);
    return json(await listLeads(database(), query));
  }),
  POST: apiRoute(async (request) => {
    const input = parseInput(createLeadBody, await readJsonBody(request), "lead");
    return json({ lead: await createLead(database(), input) }, 201);
  }),
});
