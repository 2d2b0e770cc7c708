import { createSwaggerSpec } from "next-swagger-doc";
import { z } from "zod";
import { MAX_BODY_BYTES } from "@/lib/api/body";
import type { ErrorCode } from "@/lib/api/errors";
import * as leads from "@/lib/leads/schemas";
import * as examples from "./examples";
import { healthPaths, healthStatus } from "./health";
import {
  adSource,
  agentsResponse,
  codesByStatus,
  createLeadResponse,
  errorBody,
  issue,
  listLeadsResponse,
  sourcesResponse,
} from "./schemas";

/**
 * The OpenAPI 3.1 document of the service. Every field, bound and enum comes from
 * the zod schemas (lib/leads/schemas.ts, ./schemas.ts) through z.toJSONSchema:
 * requests as their input type, responses as their output type. The prose is the
 * spec's integration guidance. Assembled with next-swagger-doc's createSwaggerSpec
 * at build time (scripts/build-openapi.ts writes public/openapi.json).
 */

/** The contract version (spec "Versioning"); not part of any path. */
export const CONTRACT_VERSION = "1.1.0";

type Json = Record<string, any>;
type Method = "get" | "post";

interface Operation {
  method: Method;
  path: string;
  /** Further paths serving the very same operation. */
  aliases: { path: string; operationId: string }[];
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  parameters?: Json[];
  requestBody?: Json;
  success: { status: number; description: string; schema: string; examples: Record<string, examples.Example<unknown>> };
  /** The error codes this operation can answer with (404/405 are added to every operation). */
  errors: ErrorCode[];
}

const JSON_SCHEMA = { target: "draft-2020-12" } as const;
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// ---------------------------------------------------------------- schemas

/** Named request schemas (input type) and response schemas (output type). */
const REQUEST_SCHEMAS = { CreateLeadRequest: leads.createLeadBody };
const RESPONSE_SCHEMAS = {
  Source: leads.source,
  AdSource: adSource,
  Agent: leads.agent,
  Referrer: leads.referrer,
  SourceReferrer: leads.listedLead.shape.referrer,
  CreatedLead: leads.createdLead,
  ListedLead: leads.listedLead,
  Pagination: leads.pagination,
  Issue: issue,
  SourcesResponse: sourcesResponse,
  AgentsResponse: agentsResponse,
  CreateLeadResponse: createLeadResponse,
  ListLeadsResponse: listLeadsResponse,
};

/** JSON Schemas of named zod schemas; references between them become component $refs. */
function toComponentSchemas(named: Record<string, z.ZodType>, io: "input" | "output"): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    ...JSON_SCHEMA,
    io,
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  if ("__shared" in schemas) throw new Error("Unnamed shared schema in the OpenAPI components");
  // Components are embedded in the document: no dialect or base URI of their own.
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema, $id, ...schema }]) => [id, schema]));
}

function toSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const { $schema, ...json } = z.toJSONSchema(schema, { ...JSON_SCHEMA, io, unrepresentable: "any" }) as Json;
  return json;
}

const pascal = (code: string) => code.toLowerCase().replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/** Component name of the error body for a set of codes, e.g. InvalidAgentOrInvalidReferrerError. */
export const errorSchemaName = (codes: readonly ErrorCode[]) => `${codes.map(pascal).join("Or")}Error`.replace(/ErrorError$/, "Error");

// ---------------------------------------------------------------- parameters

const DECIMAL_DIGITS = "^[0-9]+$";

/**
 * Query parameters of a strict zod object. A parameter written as decimal digits
 * and decoded to a bounded number is documented as that integer (its bounds and
 * default live on the decoded value); any other keeps its input schema.
 */
function queryParameters(query: z.ZodObject, descriptions: Record<string, string>): Json[] {
  const required = new Set<string>(toSchema(query, "input").required ?? []);
  return Object.entries(query.shape).map(([name, field]) => {
    const input = toSchema(field as z.ZodType, "input");
    const output = toSchema(field as z.ZodType, "output");
    const decimal = input.type === "string" && input.pattern === DECIMAL_DIGITS && output.type === "number";
    const { description: _, ...schema } = decimal ? { ...output, type: "integer" } : input;
    if (!(name in descriptions)) throw new Error(`Query parameter ${name} has no description`);
    return { name, in: "query", required: required.has(name), description: descriptions[name], schema };
  });
}

// ---------------------------------------------------------------- prose

const CURL_AUTH = `-H "Authorization: Bearer $LEADS_API_KEY"`;
const curl = (...lines: string[]) => ["```sh", lines.join(" \\\n  "), "```"].join("\n");

const ERROR_CONDITIONS: Record<ErrorCode, string> = {
  INVALID_JSON: "The POST body is not valid JSON (or not valid UTF-8).",
  INVALID_INPUT: "Invalid body fields or query parameters; `issues` names each one.",
  UNAUTHORIZED: "Bearer key missing or incorrect.",
  NOT_FOUND: "No such path: the deployed version differs from this contract; consult the administrator.",
  METHOD_NOT_ALLOWED:
    "Method not supported on this path (the `Allow` header lists the supported ones). For a documented operation: the deployed version differs from this contract; consult the administrator.",
  PAYLOAD_TOO_LARGE: `The request body is larger than 1 MiB (${MAX_BODY_BYTES} bytes).`,
  INVALID_CONTENT_TYPE: "POST without `Content-Type: application/json`.",
  INVALID_AGENT: "The assigned user does not exist or is not eligible for sales assignment.",
  INVALID_REFERRER: "The referrer account ID (`referrer.customerId`) was not found.",
  INTERNAL_ERROR: "The request could not be completed; internal details are omitted.",
  API_NOT_CONFIGURED: "The server's API key is not configured.",
  ASSIGNMENT_NOT_CONFIGURED: "Assignment storage is not enabled in the host database (POST with `assignedAgentId`).",
};

const RETRY: Record<number, (method: Method) => string> = {
  400: () => "Correct the request before retrying.",
  401: () => "Correct the key before retrying.",
  404: () => "Do not retry; the administrator is consulted.",
  405: () => "Do not retry; the administrator is consulted.",
  413: () => "Send a smaller body.",
  415: () => "Correct the request before retrying.",
  422: () => "Correct the request before retrying.",
  500: (method) =>
    method === "get"
      ? "May be retried with bounded backoff."
      : "Do not replay automatically: the outcome is not known to you; reconcile first (GET /api/leads) against your ledger of `referralId` and `leadCustomerId`.",
  503: () => "Needs the administrator; retrying does not help until the server is configured.",
};

const INFO_DESCRIPTION = `
Creates sales leads with source attribution and optional agent assignment, lists source accounts and assignable
sales agents, and reads back the current leads of source accounts. Leads created here appear in the host system's
manager and agent dashboards. All bodies are JSON; field and parameter names are camelCase and case-sensitive.

Identifiers have distinct roles and must not be interchanged: \`referralId\` is the workflow record (integer),
\`leadCustomerId\` the lead customer, \`referrer.customerId\` the Introducer (referrer) account. Source IDs carry
the prefix \`src_\`; other identifiers are opaque strings.

## Authentication

Every operation needs \`Authorization: Bearer <LEADS_API_KEY>\`: one opaque shared secret configured on the server
(not a JWT or OAuth token), the same for all operations and not scoped to a source or Introducer. Send it only in
this header, never in URLs or browser code; cookies are not used. Missing or incorrect key: 401 \`UNAUTHORIZED\`;
no key configured on the server: 503 \`API_NOT_CONFIGURED\`. This documentation and \`/openapi.json\` are public and
need no key; the page never asks for one and has no live console: use the curl examples.

${curl(`curl ${CURL_AUTH}`, `"$BASE_URL/api/leads/sources"`)}

## Responses and errors

Every response is JSON with the header \`Cache-Control: no-store\`. Check the HTTP status before reading a success
shape. Errors are \`{error, code}\`, with an \`issues\` array (\`{path, message}\`) on validation errors
(\`INVALID_INPUT\`). Request bodies are limited to 1 MiB (${MAX_BODY_BYTES} bytes); larger ones get 413
\`PAYLOAD_TOO_LARGE\`.

## Retries

- 400, 401, 415, 422 (and 413): correct the request before retrying. 503: needs the administrator.
- GET may be retried on transient transport failures or 5xx with bounded backoff.
- POST is never replayed automatically after a timeout, lost connection or uncertain outcome: it is not idempotent
  (each success creates a new lead, even for a repeated phone number), and there are no idempotency keys and no
  deduplication. Keep a ledger of the returned \`referralId\` and \`leadCustomerId\`, and reconcile (GET /api/leads)
  before deciding to send again.

## Paging

GET /api/leads returns the newest records first (descending \`referralId\`). Repeat with \`offset\` increased by
\`limit\` until \`pagination.hasMore\` is false. The data is current, not a snapshot: inserts and deletions while
paging can shift offsets, so deduplicate by \`referralId\`.

## Not provided

Update, delete, reassignment, single-lead lookup, full activity or status history, change feed, synchronisation with
external ad platforms, and any messaging notification on creation; webhooks or callbacks are not offered. Connecting ad
forms and applying assignment or rotation rules belong to the calling integration. No operation changes a lead's
status after creation; the status is this system's current value, never pulled from an external system.

## Versioning

This is contract version ${CONTRACT_VERSION}. The version is not part of any path: there is no \`/v1\` prefix. The
aliases /api/leads/ads and /api/sources (of GET /api/leads/sources) and /api/agents (of GET /api/leads/agents) serve
the same operations. If a documented operation answers 404 \`NOT_FOUND\` or 405 \`METHOD_NOT_ALLOWED\`, the deployed
version differs from this contract: consult the administrator. Unknown paths and unsupported methods under /api
answer these as JSON with \`Cache-Control: no-store\`.
`.trim();

const CREATE_RULES = `
A JSON object (\`Content-Type: application/json\`, at most 1 MiB). Unknown properties are rejected, and optional
properties must be omitted, never \`null\`.

1. Minimum body: \`leadName\`, \`leadMobileNumber\`, \`referrer\`. It yields an unassigned lead with status \`Pending\`.
2. Mobile: formatting characters are removed, a local prefix 0 or 1 becomes 60 (a leading +60 is accepted), and the
   result must be 60 followed by 9 to 11 digits. The response carries this canonical form (\`012-345 6789\` →
   \`60123456789\`).
3. \`referrer\` as a string (trimmed, repeated spaces normalised) is first resolved as an existing or configured source
   name (case and repeated spaces ignored) or a returned source ID; otherwise it is the name of a new source, whose
   account is created on the first successful POST and reused by later case or spacing variants.
4. \`referrer\` as \`{customerId}\` (only that property) names an existing person or source account; an unknown ID is
   422 \`INVALID_REFERRER\`. This form creates no account.
5. A bare string is never a person: name an existing person with the object form. Do not invent source IDs: an
   unknown string is a new source name.
6. \`assignedAgentId\` must resolve to an existing user eligible for sales with a platform ID, else 422
   \`INVALID_AGENT\`; the response returns the platform ID. Creation sets the assigned agent only (the preferred-agent
   field stays empty).
7. \`null\` for any optional field, an empty \`assignedAgentId\` and unknown properties (such as \`introducer\`,
   \`assigned_agent\`, \`status\`, \`campaignId\`) are 400 \`INVALID_INPUT\`.
8. Not idempotent: each success creates a new lead customer and workflow record, even for a repeated phone number.
   No idempotency keys, no deduplication.
9. No messaging notification is sent.
`.trim();

// ---------------------------------------------------------------- operations

const COMMON_ERRORS: ErrorCode[] = ["UNAUTHORIZED", "INTERNAL_ERROR", "API_NOT_CONFIGURED"];

const OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/api/leads/sources",
    aliases: [
      { path: "/api/leads/ads", operationId: "listSourcesAtLeadsAds" },
      { path: "/api/sources", operationId: "listSourcesAtSources" },
    ],
    operationId: "listSources",
    tag: "Sources",
    summary: "List source accounts",
    description: `
All source accounts, and the subset of type \`ads\`. Configured default sources are listed even before they have
leads. Listing never creates an account and never contacts an external ad platform. No parameters.

${curl(`curl ${CURL_AUTH}`, `"$BASE_URL/api/leads/sources"`)}`.trim(),
    success: { status: 200, description: "The source accounts.", schema: "SourcesResponse", examples: examples.sourcesExamples },
    errors: COMMON_ERRORS,
  },
  {
    method: "get",
    path: "/api/leads/agents",
    aliases: [{ path: "/api/agents", operationId: "listAgentsAtAgents" }],
    operationId: "listAgents",
    tag: "Agents",
    summary: "List assignable sales agents",
    description: `
The users a lead can be assigned to. On the normal data layout only users whose access levels contain sales are
listed; on a legacy layout without an access-level column that filter cannot be applied. An empty list means no
eligible users exist: leave leads unassigned or contact the administrator. No parameters.

${curl(`curl ${CURL_AUTH}`, `"$BASE_URL/api/leads/agents"`)}`.trim(),
    success: { status: 200, description: "The assignable agents.", schema: "AgentsResponse", examples: examples.agentsExamples },
    errors: COMMON_ERRORS,
  },
  {
    method: "post",
    path: "/api/leads",
    aliases: [],
    operationId: "createLead",
    tag: "Leads",
    summary: "Create a lead",
    description: `
Creates a customer lead and its workflow record, attributed to an Introducer (\`referrer\`) and optionally assigned
to a sales user. Creation is atomic: the source account (if new), the lead, the workflow record and the audit entry
are saved together; a success response means all were saved. Not idempotent: never replay automatically after an
uncertain outcome.

${curl(
  `curl -X POST ${CURL_AUTH}`,
  `-H "Content-Type: application/json"`,
  `-d '{"leadName":"Aminah Binti Ali","leadMobileNumber":"012-345 6789","referrer":"Facebook Ads"}'`,
  `"$BASE_URL/api/leads"`,
)}`.trim(),
    requestBody: {
      required: true,
      description: CREATE_RULES,
      content: { "application/json": { schema: schemaRef("CreateLeadRequest"), examples: examples.createLeadRequestExamples } },
    },
    success: {
      status: 201,
      description: "Created. `referrer.type` is `person` for a person Introducer, else `source`.",
      schema: "CreateLeadResponse",
      examples: examples.createLeadResponseExamples,
    },
    errors: [
      ...COMMON_ERRORS,
      "INVALID_JSON",
      "INVALID_INPUT",
      "PAYLOAD_TOO_LARGE",
      "INVALID_CONTENT_TYPE",
      "INVALID_AGENT",
      "INVALID_REFERRER",
      "ASSIGNMENT_NOT_CONFIGURED",
    ],
  },
  {
    method: "get",
    path: "/api/leads",
    aliases: [],
    operationId: "listLeads",
    tag: "Leads",
    summary: "List current leads of source accounts",
    description: `
Current leads whose Introducer is a source account, newest first (descending \`referralId\`), paginated.
Person-referral leads are excluded even though POST accepts them. Each parameter may be given at most once; unknown
or repeated parameters and blank, negative, fractional or non-decimal values are 400 \`INVALID_INPUT\`. An unknown
source gives 200 with an empty page; the query never creates a source. \`pagination.total\` counts all matching
records; an offset beyond the end gives an empty page with the same total. Page by increasing \`offset\` by \`limit\`
until \`hasMore\` is false, and deduplicate by \`referralId\` (data is current, not a snapshot).

${curl(`curl ${CURL_AUTH}`, `"$BASE_URL/api/leads?referrer=Facebook%20Ads&limit=100&offset=0"`)}`.trim(),
    parameters: queryParameters(leads.listLeadsQuery, {
      referrer:
        "One exact source name (case and repeated spaces ignored) or one exact source customer ID; no substring, wildcard, array, object or comma list. URL-encoded; omit rather than send blank. Omitted: all source accounts, including non-ad sources. Selects records only; not a permission boundary.",
      limit: "Page size, as decimal digits.",
      offset: "Records to skip, as decimal digits.",
    }),
    success: { status: 200, description: "A page of leads.", schema: "ListLeadsResponse", examples: examples.listLeadsExamples },
    errors: [...COMMON_ERRORS, "INVALID_INPUT"],
  },
];

// ---------------------------------------------------------------- assembly

const CACHE_CONTROL = {
  "Cache-Control": { $ref: "#/components/headers/Cache-Control" },
  "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
};

function errorResponse(method: Method, status: number, codes: ErrorCode[], query: boolean): Json {
  const lines = codes.map((code) => `- \`${code}\`: ${ERROR_CONDITIONS[code]}`);
  const named = Object.fromEntries(
    codes.map((code) => [code, query && code === "INVALID_INPUT" ? examples.queryErrorExample : examples.errorExamples[code]]),
  );
  return {
    description: [...lines, "", RETRY[status](method)].join("\n"),
    headers: CACHE_CONTROL,
    content: { "application/json": { schema: schemaRef(errorSchemaName(codes)), examples: named } },
  };
}

/** Every error body the operations use, by component name. */
function errorSchemas(): Record<string, z.ZodType> {
  const groups = [
    ...OPERATIONS.flatMap((op) => [...codesByStatus(op.errors).values()]),
    ["NOT_FOUND"],
    ["METHOD_NOT_ALLOWED"],
  ] as ErrorCode[][];
  return Object.fromEntries(groups.map((codes) => [errorSchemaName(codes), errorBody(codes)]));
}

function operationObject(op: Operation, operationId: string, aliasOf?: string): Json {
  const responses: Json = {
    [op.success.status]: {
      description: op.success.description,
      headers: CACHE_CONTROL,
      content: { "application/json": { schema: schemaRef(op.success.schema), examples: op.success.examples } },
    },
  };
  for (const [status, codes] of codesByStatus(op.errors)) {
    responses[status] = errorResponse(op.method, status, codes, op.parameters !== undefined);
  }
  responses[404] = { $ref: "#/components/responses/NotFound" };
  responses[405] = { $ref: "#/components/responses/MethodNotAllowed" };
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
  return {
    tags: [op.tag],
    summary: aliasOf ? `${op.summary} (alias of ${aliasOf})` : op.summary,
    description: aliasOf
      ? `Alias of \`${op.method.toUpperCase()} ${aliasOf}\`: the same operation with the same responses.\n\n${op.description}`
      : op.description,
    operationId,
    ...(op.parameters && { parameters: op.parameters }),
    ...(op.requestBody && { requestBody: op.requestBody }),
    responses: sorted,
  };
}

function paths(): Json {
  const result: Json = {};
  for (const op of OPERATIONS) {
    (result[op.path] ??= {})[op.method] = operationObject(op, op.operationId);
    for (const alias of op.aliases) {
      (result[alias.path] ??= {})[op.method] = operationObject(op, alias.operationId, op.path);
    }
  }
  return result;
}

/** The OpenAPI definition handed to createSwaggerSpec: complete, plain JSON. */
export function openApiDefinition(): Json {
  const definition = {
    openapi: "3.1.0",
    info: {
      title: "Lead Intake API",
      version: CONTRACT_VERSION,
      description: INFO_DESCRIPTION,
    },
    tags: [
      { name: "Sources", description: "Source accounts (Introducers of type source). Aliases: /api/leads/ads, /api/sources." },
      { name: "Agents", description: "Sales users leads can be assigned to. Alias: /api/agents." },
      { name: "Leads", description: "Create leads and list the current leads of source accounts." },
      { name: "Health", description: "Liveness and readiness for load balancers and supervisors; public." },
    ],
    security: [{ bearerAuth: [] }],
    paths: { ...paths(), ...healthPaths(CACHE_CONTROL) },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "`Authorization: Bearer <LEADS_API_KEY>`: an opaque shared secret configured on the server (not a JWT or OAuth token), one key for all operations. Only in this header; never in URLs or browser code.",
        },
      },
      headers: {
        "Cache-Control": {
          description: "Every response is sent with `no-store`.",
          required: true,
          schema: { type: "string", const: "no-store" },
        },
        Allow: { description: "The methods the path supports.", required: true, schema: { type: "string" } },
        "X-Request-Id": {
          description:
            "The request's id: the caller's own `X-Request-Id` when it is 1 to 128 letters, digits, `-`, `_`, `.` or `:`, else a generated one. Quote it to the operator; it is in every log line of the request and in error bodies as `requestId`.",
          required: true,
          schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
        },
      },
      responses: {
        NotFound: {
          description: `- \`NOT_FOUND\`: ${ERROR_CONDITIONS.NOT_FOUND}`,
          headers: CACHE_CONTROL,
          content: {
            "application/json": {
              schema: schemaRef(errorSchemaName(["NOT_FOUND"])),
              examples: { NOT_FOUND: examples.errorExamples.NOT_FOUND },
            },
          },
        },
        MethodNotAllowed: {
          description: `- \`METHOD_NOT_ALLOWED\`: ${ERROR_CONDITIONS.METHOD_NOT_ALLOWED}`,
          headers: { ...CACHE_CONTROL, Allow: { $ref: "#/components/headers/Allow" } },
          content: {
            "application/json": {
              schema: schemaRef(errorSchemaName(["METHOD_NOT_ALLOWED"])),
              examples: { METHOD_NOT_ALLOWED: examples.errorExamples.METHOD_NOT_ALLOWED },
            },
          },
        },
      },
      schemas: {
        ...toComponentSchemas(REQUEST_SCHEMAS, "input"),
        ...toComponentSchemas({ ...RESPONSE_SCHEMAS, ...errorSchemas(), HealthStatus: healthStatus }, "output"),
      },
    },
  };
  return JSON.parse(JSON.stringify(definition));
}

/**
 * The document as next-swagger-doc assembles it. Its folder scan is pointed at
 * this folder, which holds no annotations: the definition is complete.
 */
export function buildOpenApiDocument(): Json {
  return createSwaggerSpec({ apiFolder: "lib/openapi", definition: openApiDefinition() as never }) as Json;
}
