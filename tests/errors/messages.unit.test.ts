import { describe, expect, it } from "vitest";
import { ApiError, type Issue } from "@/lib/api/errors";
import { parseInput, parseQuery } from "@/lib/api/validation";
import { MESSAGES } from "@/lib/leads/messages";
import { createLeadBody, listLeadsQuery } from "@/lib/leads/schemas";
import { validLead } from "../helpers/lead";

/**
 * Every 400 issue is worded in the spec's terms: each field of every operation's body and query gets every kind of bad
 * value, and no message may be the validator's own (zod's default wording, or its tell-tale words).
 */

const BASE = validLead({ leadName: "Aminah Binti Ali" });
const ZOD_WORDS = /expected|received|too small|too big|invalid input|invalid option|invalid string|>=|<=/i;

/** Values that break each kind of rule: type, presence, null, bounds, characters, allowed values, the mobile rule. */
const BODY_VALUES: unknown[] = [
  undefined,
  null,
  0,
  -1,
  1.5,
  2 ** 60,
  true,
  [],
  ["x"],
  {},
  { customerId: "" },
  { customerId: 1 },
  { customerId: "c1", extra: 1 },
  "",
  " ",
  "a",
  "abc",
  "12-ab",
  "0123",
  "0123456",
  "012-345 6789 012-345 6789 012-345 6789 012",
  "not/allowed",
  "x".repeat(121),
  "x".repeat(501),
];
const QUERY_VALUES = ["", " ", "a", "abc", "-1", "0", "1.5", "1e3", "501", "2147483648", "x".repeat(121), "%"];

function issuesOf(run: () => unknown): Issue[] {
  try {
    run();
    return [];
  } catch (error) {
    if (error instanceof ApiError && error.code === "INVALID_INPUT") return error.issues ?? [];
    throw error;
  }
}

/** zod's own message for the same input, where it differs from what a schema states itself. */
function zodDefaults(schema: typeof createLeadBody | typeof listLeadsQuery, input: unknown): Set<string> {
  const result = schema.safeParse(input);
  const statedBySchemas = new Set<string>(Object.values(MESSAGES));
  const all = result.success ? [] : result.error.issues.flatMap((i) => [i, ...("errors" in i ? i.errors.flat() : [])]);
  return new Set(all.map((i) => i.message).filter((m) => !statedBySchemas.has(m)));
}

function expectSpecWording(issues: Issue[], defaults: Set<string>, context: string): void {
  for (const { message } of issues) {
    expect(message, context).not.toMatch(ZOD_WORDS);
    expect(defaults.has(message), `${context}: zod's own "${message}"`).toBe(false);
  }
}

describe("400 messages are worded in the spec's terms", () => {
  it("for every field of the POST body and every kind of bad value", () => {
    const seen = new Set<string>();
    const fields = Object.keys(createLeadBody.shape);
    expect(fields.length).toBeGreaterThanOrEqual(10);
    for (const field of [...fields, "referrer.customerId"]) {
      for (const value of BODY_VALUES) {
        const body: Record<string, unknown> =
          field === "referrer.customerId" ? { ...BASE, referrer: { customerId: value } } : { ...BASE, [field]: value };
        if (value === undefined) delete body[field];
        const issues = issuesOf(() => parseInput(createLeadBody, body, "lead"));
        expectSpecWording(issues, zodDefaults(createLeadBody, body), `${field} = ${JSON.stringify(value)}`);
        for (const issue of issues) seen.add(issue.message);
      }
    }
    // The walk reaches every kind of rule, so it proves something about each.
    const kinds = [
      MESSAGES.required,
      "Must be a string",
      "Must be a string, not null: omit an optional field instead",
      "Too short: at least 2 characters after trimming",
      "Too short: at least 6 characters after trimming",
      "Too long: at most 120 characters after trimming",
      "Too long: at most 500 characters after trimming",
      "Too long: at most 40 characters after trimming",
      MESSAGES.mobileCharacters,
      MESSAGES.mobileRule,
      MESSAGES.referrer,
      MESSAGES.agentId,
      MESSAGES.agentIdCharacters,
      MESSAGES.unknownName,
    ];
    for (const kind of kinds) expect(seen, kind).toContain(kind);
    expect([...seen].some((m) => m.startsWith("Not one of the allowed values: Family, Friend,"))).toBe(true);
    expect([...seen].some((m) => m.startsWith("Not one of the allowed values: RESIDENTIAL (2%),"))).toBe(true);
  });

  it("for every parameter of GET /api/leads and every kind of bad value, unknown and repeated names included", () => {
    const seen = new Set<string>();
    const names = [...Object.keys(listLeadsQuery.shape), "unknown"];
    for (const name of names) {
      for (const value of QUERY_VALUES) {
        for (const query of [
          `${name}=${encodeURIComponent(value)}`,
          `${name}=1&${name}=${encodeURIComponent(value)}`,
        ]) {
          const request = new Request(`http://localhost/api/leads?${query}`);
          const issues = issuesOf(() => parseQuery(listLeadsQuery, request));
          const input = Object.fromEntries(new URL(request.url).searchParams);
          expectSpecWording(issues, zodDefaults(listLeadsQuery, input), query);
          for (const issue of issues) seen.add(issue.message);
        }
      }
    }
    for (const kind of [
      MESSAGES.decimal,
      MESSAGES.repeated,
      MESSAGES.unknownName,
      "Must be at least 1",
      "Must be at most 500",
      "Must be at most 2147483647",
      "Too short: at least 2 characters after trimming",
      "Too long: at most 120 characters after trimming",
    ]) {
      expect(seen, kind).toContain(kind);
    }
  });
});
