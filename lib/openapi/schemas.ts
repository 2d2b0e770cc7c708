import { z } from "zod/v4";
import { CODES_WITH_ISSUES, ERROR_CODES, ERRORS, MAX_ISSUES, MAX_PATH_CHARS } from "@/lib/api/errors";
import * as leads from "@/lib/leads/schemas";

/**
 * The document's named schemas in zod, composed from lib/leads/schemas.ts. Response objects are strict with every
 * property required, so the contract check fails on a field the code adds or drops without the document.
 */

export const requestSchemas = { CreateLeadRequest: leads.createLeadBody };

const adSource = leads.source.extend({ type: z.literal("ads") }).describe("A source account of type `ads`.");

const ErrorCode = z
  .enum(ERROR_CODES)
  .describe(ERROR_CODES.map((code) => `- \`${code}\` (${ERRORS[code].status}): ${ERRORS[code].when}`).join("\n"));

const Issue = z
  .strictObject({
    path: z
      .string()
      .max(MAX_PATH_CHARS)
      .describe(
        'Dot-joined path of the offending field (`referrer.customerId`), the unknown property or query parameter name, or `""` for the body as a whole. ' +
          `A path longer than ${MAX_PATH_CHARS} characters is cut, ending in \`…\`.`,
      ),
    message: z.string(),
  })
  .describe("One problem with the input.");

const withIssues = { type: "object", properties: { code: { enum: CODES_WITH_ISSUES } } };

/** The one body of every error response; `issues` is present exactly on INVALID_INPUT. */
const Error = z
  .strictObject({
    error: z.string().describe("Readable explanation."),
    code: ErrorCode,
    issues: z
      .array(Issue)
      .min(1)
      .max(MAX_ISSUES + 1)
      .optional()
      .describe(
        `Each problem with the input, present exactly when \`code\` is \`INVALID_INPUT\`: the first ${MAX_ISSUES} in body order; when there are more, one last issue at path \`""\` counts the rest.`,
      ),
    requestId: z.string().describe("The request's id, also in the `X-Request-Id` header: quote it to the operator."),
  })
  .meta({
    if: withIssues,
    then: { type: "object", properties: { issues: true }, required: ["issues"] },
    else: { type: "object", properties: { issues: false } },
  });

export const responseSchemas = {
  Source: leads.source,
  AdSource: adSource,
  Agent: leads.agent,
  Referrer: leads.referrer,
  SourceReferrer: leads.listedLead.shape.referrer,
  CreatedLead: leads.createdLead,
  ListedLead: leads.listedLead,
  Pagination: leads.pagination,
  SourcesResponse: z.strictObject({
    sources: z.array(leads.source).describe("Every source account, including configured sources without leads yet."),
    ads: z.array(adSource).describe("The subset of `sources` whose type is `ads`; not a further page."),
  }),
  AgentsResponse: z.strictObject({
    agents: z.array(leads.agent).describe("Users eligible for sales assignment; empty when there are none."),
  }),
  CreateLeadResponse: z.strictObject({ lead: leads.createdLead }),
  ListLeadsResponse: z.strictObject({
    leads: z.array(leads.listedLead).describe("Newest first (descending `referralId`)."),
    pagination: leads.pagination,
  }),
  ErrorCode,
  Issue,
  Error,
  HealthStatus: z
    .strictObject({
      status: z.enum(["ok", "unavailable"]),
      reason: z
        .enum(["not-configured", "database-not-ready"])
        .optional()
        .describe(
          "With `unavailable` only: `not-configured` while the server's API key is missing or shorter than 32 " +
            "characters or a setting cannot be read (the server's log names it once at start); " +
            "`database-not-ready` while the database does not answer or the start-up work is not done.",
        ),
    })
    .describe("`ok`, or `unavailable` with 503 and its reason from the readiness check."),
};
