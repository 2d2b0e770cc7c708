import { existsSync, readFileSync } from "node:fs";
import { createSwaggerSpec } from "next-swagger-doc";
import { z } from "zod/v4";
import { ERROR_CODES, ERRORS, MAX_BODY_BYTES } from "@/lib/api/errors";
import { MAX_IF_NONE_MATCH_LENGTH } from "@/lib/api/response";
import { listLeadsQuery } from "@/lib/leads/schemas";
import { listAgents } from "@/lib/openapi/agents/list-agents";
import { live } from "@/lib/openapi/health/live";
import { ready } from "@/lib/openapi/health/ready";
import { createLead } from "@/lib/openapi/leads/create-lead";
import { listLeads } from "@/lib/openapi/leads/list-leads";
import { errorResponse, type Operation } from "@/lib/openapi/operation";
import { listSources } from "@/lib/openapi/sources/list-sources";
import { examples } from "@/lib/openapi/examples";
import { requestSchemas, responseSchemas } from "@/lib/openapi/schemas";

/**
 * The OpenAPI 3.1 document, assembled by next-swagger-doc from the typed operations (lib/openapi/<noun>/<verb>.ts),
 * the zod schemas, the examples and the integrators' guide; ./served.ts serves it.
 */

type Json = Record<string, unknown>;

/** JSON Schemas of named zod schemas; references between them become component $refs. */
function componentSchemas(named: Record<string, z.ZodType>, io: "input" | "output"): Json {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io,
    uri: (id) => `#/components/schemas/${id}`,
  });
  if ("__shared" in schemas) throw new Error("Unnamed shared schema in the OpenAPI components");
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, without(schema, "$schema", "$id")]));
}

/** A JSON object without the keys named (named, not destructured: a host's lint flags unused destructured names). */
function without(json: Json, ...keys: string[]): Json {
  return Object.fromEntries(Object.entries(json).filter(([key]) => !keys.includes(key)));
}

/** Query parameters from a strict zod object; decimal digits decoded to a number are documented as that integer. */
function queryParameters(query: z.ZodObject): Json {
  const json = (field: z.ZodType, io: "input" | "output") =>
    z.toJSONSchema(field, { target: "draft-2020-12", io, unrepresentable: "any" }) as Json;
  return Object.fromEntries(
    Object.entries(query.shape).map(([name, shape]) => {
      const field = shape as z.ZodType;
      const { description } = json(field, "input");
      const input = without(json(field, "input"), "$schema", "description");
      const output = without(json(field, "output"), "$schema", "description");
      const schema = input.pattern === "^[0-9]+$" && output.type === "number" ? { ...output, type: "integer" } : input;
      return [name, { name, in: "query", required: false, description, schema }];
    }),
  );
}

/** Every operation, each from its own file, in the order of their paths. */
function paths(): Record<string, Record<string, Operation>> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const { path, method, operation } of [live, ready, listLeads, createLead, listAgents, listSources])
    (paths[path] ??= {})[method] = operation;
  return paths;
}

/**
 * The guide, from the working directory: beside lib/ in this project, under src/ in a host's src/ layout. Each path is
 * written out whole, so that the build traces the file rather than the whole project.
 */
function guide(): string {
  return existsSync("lib/openapi/guide.md")
    ? readFileSync("lib/openapi/guide.md", "utf8")
    : readFileSync("src/lib/openapi/guide.md", "utf8");
}

function openApiDefinition(): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "Lead Intake API",
      version: "1.1.0", // the contract version (spec "Versioning"); not part of any path
      description: guide().replaceAll("{{MAX_BODY_BYTES}}", String(MAX_BODY_BYTES)),
      // Placeholders for the host to fill in before publishing the document (docs/integrators.md).
      contact: { name: "Host CRM administrator", email: "crm-admin@example.com" },
      license: { name: "Proprietary", url: "https://example.com/lead-intake/terms" },
    },
    servers: [{ url: "/", description: "The server this document is served from" }],
    paths: paths(),
    tags: [
      { name: "Sources", description: "Source accounts (Introducers of type source)." },
      { name: "Agents", description: "Sales users leads can be assigned to." },
      { name: "Leads", description: "Create leads and list the current leads of source accounts." },
      { name: "Health", description: "Liveness and readiness for load balancers and supervisors; public." },
    ],
    security: [{ bearerAuth: [] }],
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
        ETag: {
          description: "The version of the list of sources, to send back in `If-None-Match`.",
          required: true,
          schema: { type: "string", pattern: '^"[0-9]+"$' },
        },
        "Retry-After": {
          description:
            "With `READS_BUSY`, `CREATION_BUSY` and `RATE_LIMITED`: the seconds to wait before retrying. Absent with the other codes of the same status.",
          required: false,
          schema: { type: "string", pattern: "^[0-9]+$" },
        },
        "WWW-Authenticate": {
          description:
            'The RFC 6750 challenge of every 401: `Bearer`, with `error="invalid_token"` when a bearer key was sent but is not the configured one.',
          required: true,
          schema: { type: "string", enum: ["Bearer", 'Bearer error="invalid_token"'] },
        },
        RateLimit: {
          description:
            "With `RATE_LIMITED` (IETF draft-ietf-httpapi-ratelimit-headers): the policy's remaining requests `r` (0) and the seconds `t` until its window resets, e.g. `\"create\";r=0;t=37`. Absent with `CREATION_BUSY`, which is no key's limit.",
          required: false,
          schema: { type: "string", pattern: '^"(create|read)";r=[0-9]+;t=[0-9]+$' },
        },
        "RateLimit-Policy": {
          description:
            'With `RATE_LIMITED` (IETF draft-ietf-httpapi-ratelimit-headers): the policy the key ran out of, its quota `q` and window `w` in seconds, e.g. `"create";q=600;w=60`. Absent with `CREATION_BUSY`.',
          required: false,
          schema: { type: "string", pattern: '^"(create|read)";q=[0-9]+;w=[0-9]+$' },
        },
        "X-Request-Id": {
          description:
            "The request's id: the caller's own `X-Request-Id` when it is 1 to 128 letters, digits, `-`, `_`, `.` or `:`, else a generated one. Quote it to the operator; it is in every log line of the request and in error bodies as `requestId`.",
          required: true,
          schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
        },
      },
      parameters: {
        ...queryParameters(listLeadsQuery),
        "If-None-Match": {
          name: "If-None-Match",
          in: "header",
          required: false,
          description: `The \`ETag\` of the list you have (or several, comma-separated): 304 while it is unchanged. At most ${MAX_IF_NONE_MATCH_LENGTH} characters, else 400 \`INVALID_INPUT\`.`,
          schema: { type: "string", maxLength: MAX_IF_NONE_MATCH_LENGTH },
        },
      },
      responses: { NotFound: errorResponse(["NOT_FOUND"]), MethodNotAllowed: errorResponse(["METHOD_NOT_ALLOWED"]) },
      examples,
      "x-error-codes": errorTable(),
      schemas: { ...componentSchemas(requestSchemas, "input"), ...componentSchemas(responseSchemas, "output") },
    },
  };
}

/**
 * Each error code's status, retry advice and whether a GET may be retried (`transient`), as data: the typed client's
 * error table is generated from it (scripts/client-types.ts), so the client needs no server code.
 */
function errorTable() {
  return Object.fromEntries(
    ERROR_CODES.map((code) => {
      const spec: { status: number; retry: string; transient?: true } = ERRORS[code];
      return [code, { status: spec.status, transient: spec.transient === true, retry: spec.retry }];
    }),
  );
}

/** The document. next-swagger-doc also reads `@openapi` comments under app/api; the routes have none. */
/** The parts of the document that its readers use by name; the rest is JSON. */
export interface OpenApiDocument extends Json {
  openapi: string;
  info: Json & { version: string };
  paths: Record<string, Record<string, Json>>;
  components: Json & { schemas: Record<string, Json> };
}

export function buildOpenApiDocument(): OpenApiDocument {
  return createSwaggerSpec({
    apiFolder: "app/api",
    definition: openApiDefinition() as NonNullable<Parameters<typeof createSwaggerSpec>[0]>["definition"],
  }) as OpenApiDocument;
}
