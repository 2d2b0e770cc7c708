import { z } from "zod";
import { MOBILE_INPUT_PATTERN, normaliseMobile } from "./mobile";
import { cleanSourceName } from "./source-name";

/**
 * The contract in zod: these schemas validate requests, type the domain and are
 * the source of the OpenAPI document, so a bound or field lives in one place.
 */

export const RELATIONSHIPS = [
  "Family",
  "Friend",
  "Colleague",
  "Neighbor",
  "Business Partner",
  "Existing Customer",
  "Community Contact",
  "Other",
] as const;

export const PROJECT_TYPES = ["RESIDENTIAL (2%)", "SHOP-LOT (2%)", "FACTORY (1%)", "OTHERS"] as const;

export const LEAD_STATUSES = ["Pending", "Assigned"] as const;

const optionalText = (max: number) => z.string().trim().max(max).optional();

export const referrerName = z.string().trim().min(2).max(120).transform(cleanSourceName);

export const referrerInput = z.union(
  [
    referrerName.describe("A source name (existing, configured or new) or a returned source id."),
    z
      .strictObject({ customerId: z.string().trim().min(1).max(120) })
      .describe("An existing person or source customer account."),
  ],
  { error: "Must be a source name (string) or an object {customerId}" },
);

export const assignedAgentIdInput = z.union(
  [
    z
      .string()
      .trim()
      .min(1)
      .max(80)
      .regex(/^[A-Za-z0-9_-]*$/, "Only letters, digits, underscore and hyphen are allowed"),
    z.int().min(1).max(Number.MAX_SAFE_INTEGER),
  ],
  { error: "Must be a platform id (string) or a numeric user id (integer)" },
);

export const createLeadBody = z.strictObject({
  leadName: z.string().trim().min(2).max(120),
  leadMobileNumber: z
    .string()
    .trim()
    .min(6)
    .max(40)
    .regex(MOBILE_INPUT_PATTERN, "Only digits, a leading +, spaces, parentheses, dots and hyphens are allowed")
    .transform((value, ctx) => {
      const canonical = normaliseMobile(value);
      if (canonical) return canonical;
      ctx.addIssue({ code: "custom", message: "Not a Malaysian mobile number (60 followed by 9 to 11 digits)" });
      return z.NEVER;
    }),
  referrer: referrerInput,
  assignedAgentId: assignedAgentIdInput.optional(),
  leadState: optionalText(120),
  leadCity: optionalText(120),
  leadAddress: optionalText(500),
  relationship: z.enum(RELATIONSHIPS).optional(),
  projectType: z.enum(PROJECT_TYPES).optional(),
  remark: optionalText(500),
});

export type CreateLeadInput = z.output<typeof createLeadBody>;

const decimal = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, "Must be a decimal integer")
    .transform(Number)
    .pipe(z.number().min(min).max(max));

export const listLeadsQuery = z.strictObject({
  referrer: referrerName.optional(),
  limit: decimal(1, 500).default(100),
  offset: decimal(0, 2147483647).default(0),
});

export type ListLeadsInput = z.output<typeof listLeadsQuery>;

// Responses

export const source = z.strictObject({
  id: z.string(),
  name: z.string(),
  type: z.enum(["ads", "other"]),
});

export const agent = z.strictObject({
  id: z.string(),
  name: z.string(),
  platformId: z.string(),
  numericId: z.int(),
  accessLevels: z.array(z.string()),
});

export const referrer = z.strictObject({
  customerId: z.string(),
  name: z.string(),
  type: z.enum(["source", "person"]),
});

export const createdLead = z.strictObject({
  referralId: z.int(),
  leadCustomerId: z.string(),
  leadName: z.string(),
  leadMobileNumber: z.string(),
  referrer,
  assignedAgentId: z.string().nullable(),
  status: z.enum(LEAD_STATUSES),
});

export const listedLead = z.strictObject({
  referralId: z.int(),
  leadCustomerId: z.string().nullable(),
  leadName: z.string(),
  leadMobileNumber: z.string().nullable(),
  referrer: referrer.extend({ type: z.literal("source") }),
  assignedAgentId: z.string().nullable(),
  status: z.string(),
  leadState: z.string(),
  leadCity: z.string(),
  leadAddress: z.string(),
  relationship: z.string(),
  projectType: z.string(),
  remark: z.string(),
  createdAt: z.iso.datetime().nullable(),
});

export const pagination = z.strictObject({
  total: z.int().min(0),
  limit: z.int().min(1).max(500),
  offset: z.int().min(0).max(2147483647),
  hasMore: z.boolean(),
});

export type Source = z.infer<typeof source>;
export type Agent = z.infer<typeof agent>;
export type Referrer = z.infer<typeof referrer>;
export type CreatedLead = z.infer<typeof createdLead>;
export type ListedLead = z.infer<typeof listedLead>;
export type Pagination = z.infer<typeof pagination>;
