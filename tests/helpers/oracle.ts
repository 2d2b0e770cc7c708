import type { ErrorCode } from "@/lib/api/errors";
import { cleanSourceName, sourceKey } from "@/lib/leads/source-name";

/**
 * The test oracle: the spec's enumerations, bounds and rules (and decisions.md's
 * readings), written once, independently of lib/, for every test to import
 * instead of restating them; and the answer they give to a request, worked out
 * from what was actually sent (the bytes of the body, the query text as a server
 * parses it).
 */

/** What the test database holds that requests may name. */
export interface World {
  /** Source accounts by normalised name (trimmed, single spaces, lower case). */
  sourcesByKey: Map<string, { id: string; name: string }>;
  sourceIds: Set<string>;
  persons: Map<string, string>;
  /** Eligible agents (sales, with a platform id). */
  agents: { id: number; platformId: string }[];
  /** Users that exist but may not be assigned: no sales access, or no platform id. */
  ineligible: { id: number; platformId: string | null }[];
}

export type Outcome = "200" | "201" | ErrorCode;

export interface Expected {
  outcomes: Outcome[];
  /** For INVALID_INPUT: every reported issue path must be one of these or under one of them. */
  invalidPaths?: string[];
  /** For a 201: what the created lead must say. */
  lead?: ExpectedLead;
  /** For a 200 of GET /api/leads. */
  page?: { limit: number; offset: number; referrer?: string };
}

export interface ExpectedLead {
  leadName: string;
  leadMobileNumber: string;
  assignedAgentId: string | null;
  referrer: { customerId?: string; type: "source" | "person"; sourceKey?: string; newName?: string };
}

export const MAX_BODY = 1024 * 1024;
/**
 * docs/decisions.md, "Bounded refusals": arrays and objects nested deeper than this are refused before anything else is
 * read.
 */
export const MAX_NESTING = 32;
export const KNOWN_FIELDS = [
  "leadName",
  "leadMobileNumber",
  "referrer",
  "assignedAgentId",
  "leadState",
  "leadCity",
  "leadAddress",
  "relationship",
  "projectType",
  "remark",
];
export const RELATIONSHIPS = [
  "Family",
  "Friend",
  "Colleague",
  "Neighbor",
  "Business Partner",
  "Existing Customer",
  "Community Contact",
  "Other",
];
export const PROJECT_TYPES = ["RESIDENTIAL (2%)", "SHOP-LOT (2%)", "FACTORY (1%)", "OTHERS"];
/** The fields a body may leave out. */
export const OPTIONAL_FIELDS = KNOWN_FIELDS.filter((f) => !["leadName", "leadMobileNumber", "referrer"].includes(f));
const OPTIONAL_TEXT: Record<string, number> = { leadState: 120, leadCity: 120, leadAddress: 500, remark: 500 };
/** The optional free-text fields: empty or blank is stored as "". */
export const FREE_TEXT_FIELDS = Object.keys(OPTIONAL_TEXT);

type Validity = "valid" | "invalid" | "either";

/**
 * Text a store can hold as sent: no U+0000 (PostgreSQL text cannot) and no
 * unpaired surrogate (it cannot be written as UTF-8). Such text is invalid input.
 */
const storable = (s: string) => !s.includes("\0") && s.isWellFormed();

/**
 * "n to m characters": UTF-16 code units and code points disagree for astral
 * characters; where they do, either reading is accepted.
 */
function lengthIn(s: string, min: number, max: number): Validity {
  if (s.length > 2 * max) return "invalid"; // too long either way (a code point is at most two units)
  const units = s.length >= min && s.length <= max;
  const points = [...s].length >= min && [...s].length <= max;
  return units && points ? "valid" : !units && !points ? "invalid" : "either";
}

function text(value: unknown, min: number, max: number): Validity {
  if (typeof value !== "string" || !storable(value)) return "invalid";
  return lengthIn(value.trim(), min, max);
}

/** Spec rule 2 with decisions.md 1: the canonical mobile, or null. */
export function canonicalMobile(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const written = value.trim();
  if (written.length < 6 || written.length > 40 || !/^\+?[0-9 ().-]+$/.test(written)) return null;
  const digits = written.replace(/[^0-9]/g, "");
  let canonical: string;
  if (written.startsWith("+")) canonical = digits.startsWith("60") ? digits : "";
  else if (digits.startsWith("60")) canonical = digits;
  else if (digits.startsWith("0")) canonical = `6${digits}`;
  else if (digits.startsWith("1")) canonical = `60${digits}`;
  else return null;
  return /^60[0-9]{9,11}$/.test(canonical) ? canonical : null;
}

/** The expected answer to a POST /api/leads body that passed the content type and size checks. */
export function expectForBody(bytes: Uint8Array, world: World): Expected {
  let decoded: string;
  let value: unknown;
  try {
    // A UTF-8 byte order mark is ignored (RFC 8259 allows it); invalid UTF-8 is not JSON.
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { outcomes: ["INVALID_JSON"] };
  }
  if (nesting(decoded) > MAX_NESTING) return { outcomes: ["INVALID_INPUT"], invalidPaths: [""] };
  try {
    value = JSON.parse(decoded);
  } catch {
    return { outcomes: ["INVALID_JSON"] };
  }
  const unstorable = unstorablePaths(value);
  const expected = expectForLead(value, world);
  if (!unstorable.length) return expected;
  return { outcomes: ["INVALID_INPUT"], invalidPaths: [...unstorable, ...(expected.invalidPaths ?? [])] };
}

/** How deep brackets nest in JSON text once its strings are taken out. */
function nesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (const c of text.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
    if (c === "[" || c === "{") deepest = Math.max(deepest, ++depth);
    else if (c === "]" || c === "}") depth--;
  }
  return deepest;
}

/** Paths of the strings anywhere in a body that a database cannot store as sent (iterative: bodies nest deeply). */
function unstorablePaths(body: unknown): string[] {
  const found: string[] = [];
  const queue: [unknown, string][] = [[body, ""]];
  while (queue.length) {
    const [value, path] = queue.pop()!;
    if (typeof value === "string" && !storable(value)) found.push(path);
    else if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) queue.push([v, path ? `${path}.${k}` : k]);
    }
  }
  return found;
}

export function expectForLead(value: unknown, world: World): Expected {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { outcomes: ["INVALID_INPUT"], invalidPaths: [""] };
  }
  const body = value as Record<string, unknown>;
  const has = (k: string) => Object.prototype.hasOwnProperty.call(body, k);
  const validity = new Map<string, Validity>();
  for (const key of Object.keys(body)) if (!KNOWN_FIELDS.includes(key)) validity.set(key, "invalid");

  validity.set("leadName", text(body.leadName, 2, 120));
  const mobile = canonicalMobile(body.leadMobileNumber);
  validity.set("leadMobileNumber", mobile ? "valid" : "invalid");
  for (const [field, max] of Object.entries(OPTIONAL_TEXT))
    if (has(field)) validity.set(field, text(body[field], 0, max));
  if (has("relationship"))
    validity.set("relationship", RELATIONSHIPS.includes(body.relationship as string) ? "valid" : "invalid");
  if (has("projectType"))
    validity.set("projectType", PROJECT_TYPES.includes(body.projectType as string) ? "valid" : "invalid");

  // Referrer: a string names a source (existing or new), an object an existing account.
  let referrer: ExpectedLead["referrer"] | null = null;
  const given = body.referrer;
  if (typeof given === "string") {
    validity.set("referrer", text(given, 2, 120));
    const key = sourceKey(given);
    const byName = world.sourcesByKey.get(key);
    const cleaned = cleanSourceName(given);
    // An exact source id first, then a name (decisions.md 12); a new name that is a source id in another case
    // is refused (INVALID_REFERRER, docs/decisions.md, "A source id in another case").
    if (world.sourceIds.has(cleaned)) referrer = { customerId: cleaned, type: "source" };
    else if (byName) referrer = { customerId: byName.id, type: "source" };
    else if (world.sourceIds.has(key)) referrer = null;
    else referrer = { type: "source", sourceKey: key, newName: cleaned };
  } else if (given !== null && typeof given === "object" && !Array.isArray(given)) {
    const object = given as Record<string, unknown>;
    const extra = Object.keys(object).filter((k) => k !== "customerId");
    for (const k of extra) validity.set(`referrer.${k}`, "invalid");
    const idValidity = text(object.customerId, 1, 120);
    validity.set("referrer.customerId", idValidity);
    if (typeof object.customerId === "string") {
      const id = object.customerId.trim();
      if (world.sourceIds.has(id)) referrer = { customerId: id, type: "source" };
      else if (world.persons.has(id)) referrer = { customerId: id, type: "person" };
    }
  } else {
    validity.set("referrer", "invalid");
  }

  // Agent: a platform id or a numeric id (integer, or digits as a string) of an eligible user.
  let agentOutcome: "none" | "found" | "unknown" = "none";
  let agentPlatformId: string | null = null;
  if (has("assignedAgentId")) {
    const id = body.assignedAgentId;
    let numeric: number | null = null;
    let platform: string | null = null;
    if (typeof id === "string") {
      const trimmed = id.trim();
      const ok = trimmed.length >= 1 && trimmed.length <= 80 && /^[A-Za-z0-9_-]+$/.test(trimmed);
      validity.set("assignedAgentId", ok ? "valid" : "invalid");
      platform = trimmed;
      if (/^[0-9]+$/.test(trimmed)) numeric = Number(trimmed);
    } else if (typeof id === "number" && Number.isSafeInteger(id) && id >= 1) {
      validity.set("assignedAgentId", "valid");
      numeric = id;
    } else {
      validity.set("assignedAgentId", "invalid");
    }
    const agent = world.agents.find((a) => a.platformId === platform) ?? world.agents.find((a) => a.id === numeric);
    agentOutcome = agent ? "found" : "unknown";
    agentPlatformId = agent?.platformId ?? null;
  }

  const invalid = [...validity].filter(([, v]) => v === "invalid").map(([k]) => k);
  const either = [...validity].filter(([, v]) => v === "either").map(([k]) => k);
  // Reported paths may be a field's own path or one under it (referrer -> referrer.customerId).
  const paths = (keys: string[]) => keys.map((k) => (k.startsWith("referrer.") ? "referrer" : k));
  if (invalid.length) return { outcomes: ["INVALID_INPUT"], invalidPaths: paths([...invalid, ...either]) };

  let outcome: Outcome;
  if (!referrer) outcome = "INVALID_REFERRER";
  else if (agentOutcome === "unknown") outcome = "INVALID_AGENT";
  else outcome = "201";
  const expected: Expected = { outcomes: either.length ? [outcome, "INVALID_INPUT"] : [outcome] };
  if (either.length) expected.invalidPaths = paths(either);
  if (outcome === "201") {
    expected.lead = {
      leadName: (body.leadName as string).trim(),
      leadMobileNumber: mobile!,
      assignedAgentId: agentPlatformId,
      referrer: referrer!,
    };
  }
  return expected;
}

/** The expected answer to GET /api/leads with this raw query text, parsed as a server parses it. */
export function expectForQuery(query: string): Expected {
  const params = [...new URLSearchParams(query)];
  const seen = new Map<string, string>();
  const invalid = new Set<string>();
  let either = false;
  for (const [name, value] of params) {
    if (seen.has(name) || !["referrer", "limit", "offset"].includes(name)) invalid.add(name);
    seen.set(name, value);
  }
  const decimal = (v: string, min: number, max: number) => /^[0-9]+$/.test(v) && Number(v) >= min && Number(v) <= max;
  const limit = seen.get("limit");
  const offset = seen.get("offset");
  const referrer = seen.get("referrer");
  if (limit !== undefined && !decimal(limit, 1, 500)) invalid.add("limit");
  if (offset !== undefined && !decimal(offset, 0, 2147483647)) invalid.add("offset");
  if (referrer !== undefined) {
    // U+0000 cannot name any source: a valid filter that finds nothing.
    const length = lengthIn(referrer.trim(), 2, 120);
    if (length === "invalid") invalid.add("referrer");
    if (length === "either") either = true;
  }
  if (invalid.size) return { outcomes: ["INVALID_INPUT"], invalidPaths: [...invalid, ...(either ? ["referrer"] : [])] };
  const page = { limit: Number(limit ?? 100), offset: Number(offset ?? 0), referrer };
  return either
    ? { outcomes: ["200", "INVALID_INPUT"], invalidPaths: ["referrer"], page }
    : { outcomes: ["200"], page };
}

/**
 * Spec "Errors", per operation (plus 404/405 of decisions.md 11, the body limit's 413, the rate limits' 429 and the
 * 400 MALFORMED_REQUEST that the preload answers whatever the path).
 */
export const EXPECTED_CODES: Record<string, ErrorCode[]> = {
  "get /api/leads/sources": [
    "INVALID_INPUT",
    "UNAUTHORIZED",
    "MALFORMED_REQUEST",
    "NOT_FOUND",
    "METHOD_NOT_ALLOWED",
    "RATE_LIMITED",
    "INTERNAL_ERROR",
    "API_NOT_CONFIGURED",
    "READS_BUSY",
  ],
  "get /api/leads/agents": [
    "UNAUTHORIZED",
    "MALFORMED_REQUEST",
    "NOT_FOUND",
    "METHOD_NOT_ALLOWED",
    "RATE_LIMITED",
    "INTERNAL_ERROR",
    "API_NOT_CONFIGURED",
    "READS_BUSY",
  ],
  "post /api/leads": [
    "INVALID_JSON",
    "INVALID_INPUT",
    "UNAUTHORIZED",
    "MALFORMED_REQUEST",
    "NOT_FOUND",
    "METHOD_NOT_ALLOWED",
    "PAYLOAD_TOO_LARGE",
    "INVALID_CONTENT_TYPE",
    "INVALID_AGENT",
    "INVALID_REFERRER",
    "RATE_LIMITED",
    "CREATION_BUSY",
    "INTERNAL_ERROR",
    "API_NOT_CONFIGURED",
    "ASSIGNMENT_NOT_CONFIGURED",
  ],
  "get /api/leads": [
    "INVALID_INPUT",
    "UNAUTHORIZED",
    "MALFORMED_REQUEST",
    "NOT_FOUND",
    "METHOD_NOT_ALLOWED",
    "RATE_LIMITED",
    "INTERNAL_ERROR",
    "API_NOT_CONFIGURED",
    "READS_BUSY",
  ],
};
