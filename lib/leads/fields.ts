import { z } from "zod/v4";
import type { HostRows } from "@/lib/db/host-names";

type Customer = HostRows["Customer"];
type Referral = HostRows["Referral"];
import { text } from "@/lib/leads/text";

/**
 * The one table of a lead's optional fields: schema, stored default, listed form and columns. Every schema, query,
 * example and test helper derives from it, so a new optional field is one row here (README.md, "Where a change goes").
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

/** A referral column that holds text (Prisma field name). */
type TextColumn = { [F in keyof Referral]: Referral[F] extends string | null ? F : never }[keyof Referral];

interface OptionalField<Input extends z.ZodType> {
  /** The request's schema; the field may be omitted. */
  input: z.ZodOptional<Input>;
  /** What a lead created without it stores (and then lists). */
  omitted: string;
  /** The listed lead's schema; a missing value (a legacy record's NULL) is listed as "". */
  listed: z.ZodString;
  /** The referral column. */
  column: TextColumn;
  /** The lead customer's column, when the lead's own account keeps the value too. */
  customerColumn?: keyof Customer;
}

/** Free text of at most `max` characters; omitted, it is stored and listed as "". */
function freeText(max: number, column: TextColumn, customerColumn?: keyof Customer) {
  return {
    input: text(0, max, "Stored as an empty string when omitted.").optional(),
    omitted: "",
    listed: z.string().describe("Empty string when missing."),
    column,
    customerColumn,
  } satisfies OptionalField<z.ZodType>;
}

/** One of `values`; omitted, it is stored as `omitted`. */
function choice<const V extends readonly [string, ...string[]]>(
  values: V,
  omitted: V[number],
  column: TextColumn,
  description = "",
) {
  return {
    input: z.enum(values).optional().describe(`${description}Default \`${omitted}\`.`),
    omitted,
    listed: z.string(),
    column,
  } satisfies OptionalField<z.ZodType>;
}

export const OPTIONAL_LEAD_FIELDS = {
  leadState: freeText(120, "state", "state"),
  leadCity: freeText(120, "city", "city"),
  leadAddress: freeText(500, "address", "address"),
  relationship: choice(RELATIONSHIPS, "Other", "relationship", "The lead's relationship to the Introducer. "),
  projectType: choice(PROJECT_TYPES, "OTHERS", "projectType"),
  remark: freeText(500, "remark"),
};

type Fields = typeof OPTIONAL_LEAD_FIELDS;
export type OptionalFieldName = keyof Fields;
export const OPTIONAL_FIELD_NAMES = Object.keys(OPTIONAL_LEAD_FIELDS) as OptionalFieldName[];

function byField<T>(
  pick: (field: Fields[OptionalFieldName], name: OptionalFieldName) => T,
): Record<OptionalFieldName, T> {
  return Object.fromEntries(
    OPTIONAL_FIELD_NAMES.map((name) => [name, pick(OPTIONAL_LEAD_FIELDS[name], name)]),
  ) as Record<OptionalFieldName, T>;
}

/** The request's schemas of the optional fields (createLeadBody). */
export const optionalFieldInputs = byField((field) => field.input) as { [N in OptionalFieldName]: Fields[N]["input"] };

/** The listed lead's schemas of the optional fields (listedLead). */
export const listedOptionalFields = byField((field) => field.listed);

/** What a lead created without any optional field lists: "" for free text, the default of a choice. */
export const omittedFieldValues = byField((field) => field.omitted);

/** A new lead's optional fields as stored and then listed: the given value, else what an omitted field stores. */
export function optionalFieldsOf(input: Partial<Record<OptionalFieldName, string>>): Record<OptionalFieldName, string> {
  return byField((field, name) => input[name] ?? field.omitted);
}
