import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "@/lib/api/errors";
import { OPTIONAL_FIELD_NAMES, type OptionalFieldName } from "@/lib/leads/fields";
import { route, TEST_KEY } from "./api";

/**
 * Raw requests for attack tests: any header list (repeated names, odd casing),
 * any body bytes, any query text, sent to the in-process route handlers or to a
 * running server. Unlike call(), nothing is added or fixed up on the way.
 */
export interface RawRequest {
  method: string;
  /** Path and raw query text, sent as is. */
  path: string;
  headers: [string, string][];
  body?: string | Uint8Array;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  ms: number;
}

/** The four operations and the aliases, each with its documented method. */
export const OPERATIONS: [string, string][] = [
  ["POST", "/api/leads"],
  ["GET", "/api/leads"],
  ["GET", "/api/leads/sources"],
  ["GET", "/api/leads/ads"],
  ["GET", "/api/sources"],
  ["GET", "/api/leads/agents"],
  ["GET", "/api/agents"],
];

export async function sendRaw(request: RawRequest, baseUrl?: string, timeoutMs = 30_000): Promise<RawResponse> {
  const started = Date.now();
  const url = new URL(request.path, baseUrl ?? "http://localhost");
  const headers = new Headers();
  for (const [name, value] of request.headers) headers.append(name, value);
  const init: RequestInit = { method: request.method, headers, body: request.body as BodyInit | undefined };
  let response: Response;
  if (baseUrl) {
    response = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
  } else {
    response = await route(new Request(url, init));
  }
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, ms: Date.now() - started };
}

/** A request with the right key and, when given a body, Content-Type: application/json. */
export function authorised(method: string, path: string, body?: unknown, key: string = TEST_KEY): RawRequest {
  const headers: [string, string][] = [["authorization", `Bearer ${key}`]];
  if (body === undefined) return { method, path, headers };
  headers.push(["content-type", "application/json"]);
  return { method, path, headers, body: typeof body === "string" ? body : JSON.stringify(body) };
}

// The documented shapes, written from the spec (not imported from lib/), strict: no other properties.

const issue = z.strictObject({ path: z.string(), message: z.string().min(1) });

export const errorShape = z.strictObject({
  error: z.string().min(1),
  code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
  issues: z.array(issue).optional(),
  requestId: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/),
});

const sourceShape = z.strictObject({
  id: z.string().startsWith("src_"),
  name: z.string(),
  type: z.enum(["ads", "other"]),
});

export const sourcesShape = z.strictObject({ sources: z.array(sourceShape), ads: z.array(sourceShape) });

export const agentsShape = z.strictObject({
  agents: z.array(
    z
      .strictObject({
        id: z.string(),
        name: z.string(),
        platformId: z.string(),
        numericId: z.int(),
        accessLevels: z.array(z.string()),
      })
      .refine((a) => a.id === a.platformId, "id must equal platformId"),
  ),
});

const referrerShape = z.strictObject({ customerId: z.string(), name: z.string(), type: z.enum(["source", "person"]) });

export const createdShape = z.strictObject({
  lead: z
    .strictObject({
      referralId: z.int().positive(),
      leadCustomerId: z.string().min(1),
      leadName: z.string(),
      leadMobileNumber: z.string().regex(/^60\d{9,11}$/),
      referrer: referrerShape,
      assignedAgentId: z.string().nullable(),
      status: z.enum(["Pending", "Assigned"]),
    })
    .refine((l) => (l.status === "Assigned") === (l.assignedAgentId !== null), "status must follow assignment"),
});

export const listShape = z.strictObject({
  leads: z.array(
    z.strictObject({
      referralId: z.int(),
      leadCustomerId: z.string().nullable(),
      leadName: z.string(),
      leadMobileNumber: z.string().nullable(),
      referrer: referrerShape.extend({ type: z.literal("source") }),
      assignedAgentId: z.string().nullable(),
      status: z.string(),
      ...(Object.fromEntries(OPTIONAL_FIELD_NAMES.map((name) => [name, z.string()])) as Record<
        OptionalFieldName,
        z.ZodString
      >),
      createdAt: z.iso.datetime({ offset: true }).nullable(),
    }),
  ),
  pagination: z.strictObject({
    total: z.int().min(0),
    limit: z.int().min(1).max(500),
    offset: z.int().min(0).max(2147483647),
    hasMore: z.boolean(),
  }),
});

/** Text that must never reach a client: stack frames, SQL, driver and file names. */
const INTERNALS =
  /\n\s+at\s|\bat .+:\d+:\d+|prisma|postgres|\bpg\b|SQLSTATE|\bSELECT\b|\bINSERT\b|\bUPDATE\b|node_modules|\.(ts|js|mjs):\d+/i;

/**
 * The checks every API response must pass, whatever was sent: a documented
 * status and code pair, JSON of the documented shape, Cache-Control: no-store,
 * no 5xx unless allowed, no internals and no key in the body. Returns the
 * parsed body; throws with the response attached otherwise.
 */
export function checkEnvelope(response: RawResponse, { allow5xx = false } = {}): any {
  const fail = (why: string): never => {
    throw new Error(`${why}\nstatus ${response.status}\n${response.text.slice(0, 2000)}`);
  };
  if (response.headers.get("cache-control") !== "no-store") fail("Cache-Control is not no-store");
  if (!/^application\/json\b/i.test(response.headers.get("content-type") ?? "")) fail("not JSON");
  if (!allow5xx && response.status >= 500) fail("5xx answer");
  if (response.text.includes(TEST_KEY)) fail("the key is in the body");
  let body: any;
  try {
    body = JSON.parse(response.text);
  } catch {
    fail("body is not JSON");
  }
  if (response.status === 200 || response.status === 201) return body;
  const parsed = errorShape.safeParse(body);
  if (!parsed.success) fail(`error body of the wrong shape: ${parsed.error.message}`);
  if (ERROR_STATUS[body.code as ErrorCode] !== response.status)
    fail(`code ${body.code} with status ${response.status}`);
  if (body.requestId !== response.headers.get("x-request-id")) fail("requestId is not the X-Request-Id header");
  if ((body.code === "INVALID_INPUT") !== Array.isArray(body.issues)) fail("issues only and always on INVALID_INPUT");
  if (body.code === "INVALID_INPUT" && body.issues.length === 0) fail("INVALID_INPUT without issues");
  const said = [body.error, ...(body.issues ?? []).map((i: { message: string }) => i.message)].join("\n");
  if (INTERNALS.test(said)) fail("internal details in the error");
  if (body.code === "METHOD_NOT_ALLOWED" && !response.headers.get("allow")) fail("405 without Allow");
  return body;
}

/** Lines of server output that look like a stack trace or a database error. */
export function stackTraceLines(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => /^\s+at\s|\bat .+:\d+:\d+\)?$|^\w*Error:|prisma:error|SQLSTATE/.test(line));
}

/** Strings distinctive enough that finding one in a log means it was logged, not a coincidence. */
export function distinctive(values: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const value of values) {
    const text = value.trim();
    if (text.length >= 8 && new Set(text).size >= 5) out.add(text);
  }
  return [...out];
}
