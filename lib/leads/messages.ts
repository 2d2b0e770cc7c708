import type { z } from "zod/v4";

/**
 * The one home of the validation messages: every `issues[].message` of a 400 is worded here, in the spec's terms
 * (required, too short, too long, not one of the allowed values, the mobile rule), never in the validator's own words.
 */
export const MESSAGES = {
  required: "Required",
  unknownName: "Unknown name: not part of the API",
  repeated: "Given more than once",
  referrer: "Must be a source name (string) or an object {customerId}",
  agentId: "Must be a platform id (string) or a numeric user id (integer)",
  agentIdCharacters: "Only letters, digits, underscore and hyphen are allowed",
  mobileCharacters: "Only digits, a leading +, spaces, parentheses, dots and hyphens are allowed",
  mobileRule: "Not a Malaysian mobile number (60 followed by 9 to 11 digits)",
  decimal: "Must be a decimal integer",
  format: "Not in the documented format",
  invalid: "Not allowed by the contract",
} as const;

const TRIMMED = " after trimming";

/** zod's names of types, as the spec writes them. */
const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
};

function mustBe(expected: string, input: unknown): string {
  return `Must be ${TYPE_NAMES[expected] ?? expected}${input === null ? ", not null: omit an optional field instead" : ""}`;
}

/** A text over its maximum length; `after` says how it is measured. */
export const tooLong = (max: number, after = "") => `Too long: at most ${max} characters${after}`;

/** "Too short" or "too long" for text, a bound for numbers; `inclusive` is how zod states `>` against `>=`. */
function bound(issue: z.core.$ZodRawIssue & { code: "too_small" | "too_big" }): string {
  const limit = Number(issue.code === "too_small" ? issue.minimum : issue.maximum);
  const small = issue.code === "too_small";
  const at = issue.inclusive === false ? (small ? limit + 1 : limit - 1) : limit;
  if (issue.origin === "string") return small ? `Too short: at least ${at} characters${TRIMMED}` : tooLong(at, TRIMMED);
  if (issue.origin === "array" || issue.origin === "set") return `${small ? "At least" : "At most"} ${at} items`;
  return `Must be ${small ? "at least" : "at most"} ${at}`;
}

/**
 * The error map every request is validated with (lib/api/validation.ts, the importer's dry run): a message a schema
 * states itself wins, as zod gives it precedence; this words the rest.
 */
export const ruleMessage: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? MESSAGES.required : mustBe(issue.expected, issue.input);
    case "too_small":
    case "too_big":
      return bound(issue);
    case "invalid_value":
      return `Not one of the allowed values: ${issue.values.map(String).join(", ")}`;
    case "invalid_format":
      return MESSAGES.format;
    case "unrecognized_keys":
      return MESSAGES.unknownName;
    default:
      return MESSAGES.invalid;
  }
};

/** A union's own message, except for a missing value, which is simply required. */
export const unionMessage =
  (message: string): z.core.$ZodErrorMap =>
  (issue) =>
    issue.input === undefined ? MESSAGES.required : message;
