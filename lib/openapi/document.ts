import { readFileSync } from "node:fs";
import { createSwaggerSpec } from "next-swagger-doc";
import { z } from "zod";
import { ApiError, ERROR_CODES, ERRORS, MAX_BODY_BYTES, type ErrorCode } from "@/lib/api/errors";
import { listLeadsQuery } from "@/lib/leads/schemas";
import { examples, invalidInput } from "./examples";
import { requestSchemas, responseSchemas } from "./schemas";

/**
 * The OpenAPI 3.1 document, assembled by next-swagger-doc's createSwaggerSpec:
 * each operation is the `@openapi` comment next to its route in app/api, and this
 * definition gives what the operations refer to: schemas and query parameters
 * from zod (lib/leads/schemas.ts, ./schemas.ts), examples (./examples.ts), the
 * integrators' guide (lib/openapi/guide.md). An operation's `x-errors` lists its error
 * codes; each becomes its status's response, described from the error table
 * (lib/api/errors.ts). scripts/build-openapi.ts writes the result to public/openapi.json.
 */

type Json = Record<string, any>;
const ref = (to: string) => ({ $ref: `#/components/${to}` });
/** Headers of every response: no-store, and the request id (lib/api/route.ts). */
const RESPONSE_HEADERS = { "Cache-Control": ref("headers/Cache-Control"), "X-Request-Id": ref("headers/X-Request-Id") };

/** JSON Schemas of named zod schemas; references between them become component $refs. */
function componentSchemas(named: Record<string, z.ZodType>, io: "input" | "output"): Json {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { target: "draft-2020-12", io, uri: (id) => `#/components/schemas/${id}` });
  if ("__shared" in schemas) throw new Error("Unnamed shared schema in the OpenAPI components");
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema, $id, ...schema }]) => [id, schema]));
}

/** Query parameters from a strict zod object; decimal digits decoded to a number are documented as that integer. */
function queryParameters(query: z.ZodObject): Json {
  const json = (field: z.ZodType, io: "input" | "output") => z.toJSONSchema(field, { target: "draft-2020-12", io, unrepresentable: "any" }) as Json;
  return Object.fromEntries(
    Object.entries(query.shape).map(([name, field]) => {
      const { $schema, description, ...input } = json(field, "input");
      const { $schema: _, description: __, ...output } = json(field, "output");
      const schema = input.pattern === "^[0-9]+$" && output.type === "number" ? { ...output, type: "integer" } : input;
      return [name, { name, in: "query", required: false, description, schema }];
    }),
  );
}

const EXAMPLE_REQUEST_ID = "5b0e7c1a-9d2f-4e86-b3a1-0c7d2e9f4a61";
const EXAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = { METHOD_NOT_ALLOWED: "DELETE is not supported here; use GET, POST" };

function errorExample(code: ErrorCode, inQuery: boolean): Json {
  const input = inQuery ? { error: "Invalid query parameters", issues: invalidInput.query } : { error: "Invalid lead", issues: invalidInput.body };
  const error = code === "INVALID_INPUT" ? new ApiError(code, input.error, input.issues) : new ApiError(code, EXAMPLE_MESSAGES[code]);
  const value = { ...error.toJSON(), requestId: EXAMPLE_REQUEST_ID };
  return { summary: ERRORS[code].when.replace(/[.;:].*/s, ""), value };
}

/** The response of one status: its codes with when each happens, the retry advice, one example per code. */
function errorResponse(codes: ErrorCode[], inQuery = false): Json {
  const retry = [...new Set(codes.map((code) => ERRORS[code].retry))];
  return {
    description: [...codes.map((code) => `- \`${code}\`: ${ERRORS[code].when}`), "", ...retry].join("\n"),
    headers: codes.includes("METHOD_NOT_ALLOWED") ? { ...RESPONSE_HEADERS, Allow: ref("headers/Allow") } : RESPONSE_HEADERS,
    content: {
      "application/json": {
        schema: { type: "object", allOf: [ref("schemas/Error")], properties: { code: { enum: codes } } },
        examples: Object.fromEntries(codes.map((code) => [code, errorExample(code, inQuery)])),
      },
    },
  };
}

/** Expands an operation's `x-errors` into responses, adds 404/405 and no-store to every response, names its aliases. */
function complete(method: string, operation: Json): void {
  const codes: ErrorCode[] = operation["x-errors"] ?? [];
  delete operation["x-errors"];
  for (const response of Object.values<Json>(operation.responses)) response.headers = RESPONSE_HEADERS;
  for (const status of new Set(codes.map((code) => ERRORS[code].status))) {
    const inQuery = method === "get" && operation.parameters !== undefined;
    operation.responses[status] = errorResponse(ERROR_CODES.filter((c) => codes.includes(c) && ERRORS[c].status === status), inQuery);
  }
  operation.responses[404] = ref("responses/NotFound");
  operation.responses[405] = ref("responses/MethodNotAllowed");
  operation.responses = Object.fromEntries(Object.entries(operation.responses).sort(([a], [b]) => Number(a) - Number(b)));
  operation.description = operation.description.trimEnd();
  const aliases: string[] = operation["x-aliases"] ?? [];
  if (aliases.length) {
    operation.description += `\n\nAlso served, as the very same operation, at ${aliases.map((a) => `\`${method.toUpperCase()} ${a}\``).join(" and ")} (\`x-aliases\`).`;
  }
}

function openApiDefinition(): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "Lead Intake API",
      version: "1.1.0", // the contract version (spec "Versioning"); not part of any path
      description: readFileSync("lib/openapi/guide.md", "utf8").replaceAll("{{MAX_BODY_BYTES}}", String(MAX_BODY_BYTES)),
      // Placeholders for the host to fill in before publishing the document (README, "For integrators").
      contact: { name: "Host CRM administrator", email: "crm-admin@example.com" },
      license: { name: "Proprietary", url: "https://example.com/lead-intake/terms" },
    },
    servers: [{ url: "/", description: "The server this document is served from" }],
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
        "Cache-Control": { description: "Every response is sent with `no-store`.", required: true, schema: { type: "string", const: "no-store" } },
        Allow: { description: "The methods the path supports.", required: true, schema: { type: "string" } },
        "X-Request-Id": {
          description:
            "The request's id: the caller's own `X-Request-Id` when it is 1 to 128 letters, digits, `-`, `_`, `.` or `:`, else a generated one. Quote it to the operator; it is in every log line of the request and in error bodies as `requestId`.",
          required: true,
          schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
        },
      },
      parameters: queryParameters(listLeadsQuery),
      responses: { NotFound: errorResponse(["NOT_FOUND"]), MethodNotAllowed: errorResponse(["METHOD_NOT_ALLOWED"]) },
      examples,
      schemas: { ...componentSchemas(requestSchemas, "input"), ...componentSchemas(responseSchemas, "output") },
    },
  };
}

/** The document: the route annotations (app/api) on the definition, operations completed. */
export function buildOpenApiDocument(): Json {
  const spec = createSwaggerSpec({ apiFolder: "app/api", definition: JSON.parse(JSON.stringify(openApiDefinition())) }) as Json;
  for (const item of Object.values<Json>(spec.paths)) for (const [method, operation] of Object.entries<Json>(item)) complete(method, operation);
  return JSON.parse(JSON.stringify({ ...spec, paths: Object.fromEntries(Object.entries(spec.paths).sort()) }));
}
