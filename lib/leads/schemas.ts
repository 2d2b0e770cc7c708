import { z } from "zod/v4";
import { MOBILE_INPUT_PATTERN, MOBILE_PATTERN, normaliseMobile } from "@/lib/leads/mobile";
import { listedOptionalFields, optionalFieldInputs } from "@/lib/leads/fields";
import { cleanSourceName } from "@/lib/leads/source-name";
import { QUERY_TEXT, STORABLE, text, trimmed } from "@/lib/leads/text";
import { MESSAGES, ruleMessage, unionMessage } from "@/lib/leads/messages";

/**
 * The contract in zod: these schemas validate requests, type the domain and are
 * the source of the OpenAPI document, so a bound or field lives in one place.
 */

export const LEAD_STATUSES = ["Pending", "Assigned"] as const;

/** A source name, as a referrer or a query value: characters after trimming. */
const SOURCE_NAME = { min: 2, max: 120 } as const;
/** PostgreSQL's integer (int4) maximum: referral ids, user ids and list offsets are int4. */
export const MAX_INT4 = 2_147_483_647;
/** Records per page of GET /api/leads. */
const PAGE = { max: 500, default: 100 } as const;

export const referrerName = z
  .string()
  .trim()
  .min(SOURCE_NAME.min)
  .max(SOURCE_NAME.max)
  .transform(cleanSourceName)
  .meta({ pattern: trimmed(SOURCE_NAME.min, SOURCE_NAME.max), maxLength: undefined });

export const referrerInput = z.union(
  [
    referrerName.describe(
      `A source name (existing, configured or new) or a returned source id. Trimmed; ${SOURCE_NAME.min} to ${SOURCE_NAME.max} characters after trimming. ${STORABLE}`,
    ),
    z
      .strictObject({
        customerId: text(1, 120, "ID of an existing person or source customer account."),
      })
      .describe(
        "An existing person or source customer account. An unknown ID is 422 INVALID_REFERRER; creates no account.",
      ),
  ],
  { error: unionMessage(MESSAGES.referrer) },
);

export const assignedAgentIdInput = z.union(
  [
    z
      .string()
      .trim()
      .min(1)
      .max(80)
      .regex(/^[A-Za-z0-9_-]*$/, MESSAGES.agentIdCharacters)
      .meta({ pattern: String.raw`^\s*[A-Za-z0-9_-]{1,80}\s*$`, maxLength: undefined })
      .describe(
        "The user's platform ID (preferred), or the numeric user ID written as a string: 1 to 80 letters, digits, underscores or hyphens after trimming.",
      ),
    // z.int() itself bounds the value to safe integers (maximum 2^53 - 1 in the document); a .max() of the same would
    // add a second issue.
    z.int().min(1).describe("The numeric user ID."),
  ],
  { error: unionMessage(MESSAGES.agentId) },
);

export const createLeadBody = z.strictObject({
  leadName: text(2, 120, "The lead's name."),
  leadMobileNumber: z
    .string()
    .trim()
    .min(6)
    .max(40)
    .regex(MOBILE_INPUT_PATTERN, MESSAGES.mobileCharacters)
    .meta({ pattern: MOBILE_PATTERN, maxLength: undefined })
    .transform((value, ctx) => {
      const canonical = normaliseMobile(value);
      if (canonical) return canonical;
      ctx.addIssue({ code: "custom", message: MESSAGES.mobileRule });
      return z.NEVER;
    })
    .describe(
      "A Malaysian mobile number as written: trimmed, then 6 to 40 characters. Formatting (spaces, parentheses, dots, " +
        "hyphens) is removed, a local 0 or 1 prefix becomes 60 (a leading +60 is accepted); the result must be 60 " +
        "followed by 9 to 11 digits.",
    ),
  referrer: referrerInput.describe(
    "The Introducer: a source name or returned source ID (string), or an existing account ({customerId}).",
  ),
  assignedAgentId: assignedAgentIdInput
    .optional()
    .describe(
      "The sales user to assign: an `id` from GET /api/leads/agents, or its `numericId`. Omit to leave the lead unassigned.",
    ),
  ...optionalFieldInputs,
});

export type CreateLeadInput = z.output<typeof createLeadBody>;

const decimal = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, MESSAGES.decimal)
    .transform(Number)
    .pipe(z.number().min(min).max(max));

export const listLeadsQuery = z.strictObject({
  referrer: referrerName
    .meta({ pattern: trimmed(SOURCE_NAME.min, SOURCE_NAME.max, QUERY_TEXT) })
    .optional()
    .describe(
      "One exact source name (case and repeated spaces ignored) or one exact source customer ID; no substring, wildcard, " +
        `array, object or comma list. URL-encoded; trimmed, then ${SOURCE_NAME.min} to ${SOURCE_NAME.max} characters. Omit ` +
        "rather than send blank. Omitted: all source accounts, including non-ad sources. Selects records only; not a " +
        "permission boundary.",
    ),
  limit: decimal(1, PAGE.max).default(PAGE.default).describe("Page size, as decimal digits."),
  offset: decimal(0, MAX_INT4).default(0).describe("Records to skip, as decimal digits."),
});

export type ListLeadsInput = z.output<typeof listLeadsQuery>;

/** Validates input against a request schema with the spec's messages (lib/leads/messages.ts). */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(input, { error: ruleMessage });
}

// Responses

export const source = z
  .strictObject({
    id: z.string().describe("Source account ID, with the prefix `src_`."),
    name: z.string(),
    type: z.enum(["ads", "other"]),
  })
  .describe("A source account.");

export const agent = z
  .strictObject({
    id: z.string().describe("Same value as `platformId`; the preferred value for `assignedAgentId`."),
    name: z.string(),
    platformId: z.string().describe("The user's ID in the host platform. Same as `id`."),
    numericId: z.int().describe("Numeric user ID; also accepted as `assignedAgentId`."),
    accessLevels: z.array(z.string()).describe("Access levels of the user (empty on a legacy layout)."),
  })
  .describe("A sales user leads can be assigned to.");

export const referrer = z
  .strictObject({
    customerId: z.string().describe("The Introducer's customer account ID."),
    name: z.string(),
    type: z.enum(["source", "person"]),
  })
  .describe("The Introducer of a lead.");

export const createdLead = z
  .strictObject({
    referralId: z.int().describe("Workflow record ID."),
    leadCustomerId: z.string().describe("The lead customer's ID."),
    leadName: z.string(),
    leadMobileNumber: z
      .string()
      .describe("The number as sent, in its canonical form (`012-345 6789` → `60123456789`)."),
    referrer,
    assignedAgentId: z.string().nullable().describe("Assigned user's platform ID; null if unassigned."),
    status: z.enum(LEAD_STATUSES).describe("`Assigned` when an agent was given, else `Pending`."),
  })
  .describe("The lead just created.");

export const listedLead = z
  .strictObject({
    referralId: z.int().describe("Workflow record ID; use it to deduplicate across pages."),
    leadCustomerId: z.string().nullable().describe("The lead customer's ID; null for legacy records."),
    leadName: z.string(),
    leadMobileNumber: z.string().nullable(),
    referrer: referrer.extend({ type: z.literal("source") }).describe("The source account that introduced the lead."),
    assignedAgentId: z.string().nullable().describe("Platform ID of the assigned user; null if unassigned."),
    status: z
      .string()
      .describe(
        "The current stored value in this system (open set): `Pending`, `Assigned`, `Contacted`, `Qualified`, " +
          "`Successful`, `Rejected`; legacy values are passed through unchanged.",
      ),
    ...listedOptionalFields,
    createdAt: z.iso.datetime().nullable().describe("ISO 8601 timestamp in UTC; null when unavailable."),
  })
  .describe("A current lead of a source account.");

export const pagination = z
  .strictObject({
    total: z.int().min(0).describe("Count of all matching records, not of the page."),
    limit: z.int().min(1).max(PAGE.max).describe("The page size used."),
    offset: z.int().min(0).max(MAX_INT4).describe("The offset used."),
    hasMore: z.boolean().describe("Whether a further page exists: repeat with offset + limit while true."),
  })
  .describe("Where this page lies among all matching records.");

export type Source = z.infer<typeof source>;
export type Agent = z.infer<typeof agent>;
export type Referrer = z.infer<typeof referrer>;
export type CreatedLead = z.infer<typeof createdLead>;
export type ListedLead = z.infer<typeof listedLead>;
export type Pagination = z.infer<typeof pagination>;
