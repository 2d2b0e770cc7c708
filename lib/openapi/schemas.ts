import { z } from "zod";
import { ERROR_STATUS, MAX_ISSUES, MAX_PATH_CHARS, type ErrorCode, type Issue } from "@/lib/api/errors";
import * as leads from "@/lib/leads/schemas";

/**
 * The response envelopes the routes answer with, composed from the resource
 * schemas of lib/leads/schemas.ts, and the error bodies of lib/api/errors.ts.
 * Every object is strict and every property required, so the contract check
 * fails on a field the code adds or drops without the document.
 */

export const adSource = leads.source.extend({ type: z.literal("ads") }).describe("A source account of type `ads`.");

export const sourcesResponse = z.strictObject({
  sources: z.array(leads.source).describe("Every source account, including configured sources without leads yet."),
  ads: z.array(adSource).describe("The subset of `sources` whose type is `ads`; not a further page."),
});

export const agentsResponse = z.strictObject({
  agents: z.array(leads.agent).describe("Users eligible for sales assignment; empty when there are none."),
});

export const createLeadResponse = z.strictObject({ lead: leads.createdLead });

export const listLeadsResponse = z.strictObject({
  leads: z.array(leads.listedLead).describe("Newest first (descending `referralId`)."),
  pagination: leads.pagination,
});

export const issue: z.ZodType<Issue> = z
  .strictObject({
    path: z
      .string()
      .max(MAX_PATH_CHARS)
      .describe(
        "Dot-joined path of the offending field (`referrer.customerId`), the unknown property or query parameter name, or `\"\"` for the body as a whole. " +
          `A path longer than ${MAX_PATH_CHARS} characters is cut, ending in \`…\`.`,
      ),
    message: z.string(),
  })
  .describe("One problem with the input.");

/** The codes whose body carries `issues` (validation failures); no other code has them. */
export const CODES_WITH_ISSUES: readonly ErrorCode[] = ["INVALID_INPUT"];

/**
 * The body of an error response that may carry any of `codes`: `{error, code}`,
 * with a required `issues` array exactly for the codes that have one.
 */
export function errorBody(codes: readonly ErrorCode[]): z.ZodType {
  const plain = codes.filter((code) => !CODES_WITH_ISSUES.includes(code));
  const withIssues = codes.filter((code) => CODES_WITH_ISSUES.includes(code));
  const variants: z.ZodType[] = [];
  const base = (group: ErrorCode[]) => ({
    error: z.string().describe("Readable explanation."),
    code: z.enum(group as [ErrorCode, ...ErrorCode[]]),
  });
  if (plain.length) variants.push(z.strictObject(base(plain)));
  if (withIssues.length) {
    const issues = z
      .array(issue)
      .min(1)
      .max(MAX_ISSUES + 1)
      .describe(`The first ${MAX_ISSUES} problems in body order; when there are more, one last issue at path \`""\` counts the rest.`);
    variants.push(z.strictObject({ ...base(withIssues), issues }));
  }
  if (!variants.length) throw new Error("errorBody needs at least one code");
  return variants.length === 1 ? variants[0] : z.union(variants);
}

/** Error codes by HTTP status, in the order of the status table. */
export function codesByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
    if (!codes.includes(code)) continue;
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}
