import type { Issue } from "@/lib/api/errors";
import { toIssues } from "@/lib/api/validation";
import { MESSAGES } from "@/lib/leads/messages";
import { createLeadBody, type CreateLeadInput, validate } from "@/lib/leads/schemas";
import { validLead } from "./lead";

/** What the checks of POST /api/leads' body without a database share (tests/create-lead/body-*.unit.test.ts). */

export const BASE = validLead();

export const UNION_REFERRER = MESSAGES.referrer;
export const UNION_AGENT = MESSAGES.agentId;
export const UNKNOWN_NAME = MESSAGES.unknownName;

export function accept(body: unknown): CreateLeadInput {
  const result = validate(createLeadBody, body);
  if (!result.success) throw new Error(`expected acceptance, got ${JSON.stringify(toIssues(result.error.issues))}`);
  return result.data;
}

export function reject(body: unknown): Issue[] {
  const result = validate(createLeadBody, body);
  if (result.success) throw new Error(`expected rejection, got ${JSON.stringify(result.data)}`);
  return toIssues(result.error.issues);
}

export const pathsOf = (body: unknown) => reject(body).map((issue) => issue.path);

/** A body with one field set (or, for referrer.customerId, the object referrer). */
export function withField(path: string, value: unknown): Record<string, unknown> {
  return path === "referrer.customerId" ? { ...BASE, referrer: { customerId: value } } : { ...BASE, [path]: value };
}

/** The parsed value of a field. */
export function parsedField(data: CreateLeadInput, path: string): unknown {
  if (path === "referrer.customerId") return (data.referrer as { customerId: string }).customerId;
  return data[path as keyof CreateLeadInput];
}
