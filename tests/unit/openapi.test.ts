import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_BODY_BYTES } from "@/lib/api/body";
import { ERROR_STATUS, type ErrorCode } from "@/lib/api/errors";
import { buildOpenApiDocument, openApiDefinition } from "@/lib/openapi/document";
import * as leads from "@/lib/leads/schemas";
import { openApiDocument, schemaValidator } from "../helpers/openapi";
import { PROJECT_TYPES, RELATIONSHIPS } from "../helpers/oracle";

/** The OpenAPI document (lib/openapi/document.ts), checked against the spec and its own schemas. */

const root = path.resolve(import.meta.dirname, "../..");
const doc = openApiDocument();
type Json = Record<string, any>;

const OPERATIONS = [
  { method: "get", path: "/api/leads/sources", aliases: ["/api/leads/ads", "/api/sources"] },
  { method: "get", path: "/api/leads/agents", aliases: ["/api/agents"] },
  { method: "post", path: "/api/leads", aliases: [] },
  { method: "get", path: "/api/leads", aliases: [] },
] as const;

/** Spec "Errors", per operation (plus 404/405 of decisions.md 11 and the body limit's 413). */
const EXPECTED_CODES: Record<string, ErrorCode[]> = {
  "get /api/leads/sources": ["UNAUTHORIZED", "NOT_FOUND", "METHOD_NOT_ALLOWED", "INTERNAL_ERROR", "API_NOT_CONFIGURED"],
  "get /api/leads/agents": ["UNAUTHORIZED", "NOT_FOUND", "METHOD_NOT_ALLOWED", "INTERNAL_ERROR", "API_NOT_CONFIGURED"],
  "post /api/leads": [
    "INVALID_JSON",
    "INVALID_INPUT",
    "UNAUTHORIZED",
    "NOT_FOUND",
    "METHOD_NOT_ALLOWED",
    "PAYLOAD_TOO_LARGE",
    "INVALID_CONTENT_TYPE",
    "INVALID_AGENT",
    "INVALID_REFERRER",
    "INTERNAL_ERROR",
    "API_NOT_CONFIGURED",
    "ASSIGNMENT_NOT_CONFIGURED",
  ],
  "get /api/leads": ["INVALID_INPUT", "UNAUTHORIZED", "NOT_FOUND", "METHOD_NOT_ALLOWED", "INTERNAL_ERROR", "API_NOT_CONFIGURED"],
};

const SUCCESS: Record<string, number> = { "get /api/leads/sources": 200, "get /api/leads/agents": 200, "post /api/leads": 201, "get /api/leads": 200 };

function resolve(node: Json): Json {
  if (typeof node?.$ref !== "string") return node;
  return node.$ref
    .slice(2)
    .split("/")
    .reduce((n: any, key: string) => n[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

/** Every schema node reachable from `schema`, following component references once each. */
function* walk(schema: unknown, seen = new Set<unknown>()): Generator<Json> {
  if (schema === null || typeof schema !== "object" || seen.has(schema)) return;
  seen.add(schema);
  const node = schema as Json;
  if (typeof node.$ref === "string") {
    yield* walk(resolve(node), seen);
    return;
  }
  yield node;
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) for (const item of value) yield* walk(item, seen);
    else yield* walk(value, seen);
  }
}

const operationsWithAliases = () =>
  OPERATIONS.flatMap((op) => [op.path, ...op.aliases].map((p) => ({ ...op, at: p, operation: doc.paths[p][op.method] as Json })));

/** Error codes the enum(s) of a response schema allow. */
function codesOf(schema: Json): string[] {
  return [...walk(schema)].filter((n) => n.properties?.code).flatMap((n) => resolve(n.properties.code).enum ?? []);
}

const mediaTypes = function* (): Generator<{ where: string; media: Json }> {
  for (const [p, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (op.requestBody) yield { where: `${method} ${p} request`, media: op.requestBody.content["application/json"] };
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        yield { where: `${method} ${p} ${status}`, media: resolve(response).content["application/json"] };
      }
    }
  }
};

describe("OpenAPI document: generation", () => {
  it("is generated from the zod schemas by createSwaggerSpec (a broken build step fails here)", () => {
    const generated = buildOpenApiDocument();
    expect(generated.openapi).toBe("3.1.0");
    expect(generated.info.version).toBe("1.1.0");
    // next-swagger-doc adds nothing from source annotations: the definition is complete.
    expect(generated).toEqual(openApiDefinition());
  });

  it("validates against the OpenAPI 3.1 schema (@seriousme/openapi-schema-validator)", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("is what the build wrote to public/openapi.json, the file served at /openapi.json", () => {
    const file = path.join(root, "public/openapi.json");
    expect(existsSync(file), "public/openapi.json is missing: run `npm run build`").toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8")), "public/openapi.json is stale: run `npm run build`").toEqual(doc);
  });

  it("takes its request and response schemas from zod (input for requests, output for responses)", () => {
    const json = (schema: z.ZodType, io: "input" | "output") => {
      const { $schema, ...rest } = z.toJSONSchema(schema, { io, target: "draft-2020-12" }) as Json;
      return rest;
    };
    const { schemas } = doc.components;
    expect(schemas.CreateLeadRequest).toEqual(json(leads.createLeadBody, "input"));
    expect(schemas.Source).toEqual(json(leads.source, "output"));
    expect(schemas.Agent).toEqual(json(leads.agent, "output"));
    expect(schemas.Pagination).toEqual(json(leads.pagination, "output"));
    expect(schemas.SourceReferrer).toEqual(json(leads.listedLead.shape.referrer, "output"));
    // Nested resources are references to their components.
    expect(schemas.CreatedLead.properties.referrer).toEqual({ $ref: "#/components/schemas/Referrer" });
    expect(schemas.ListedLead.properties.referrer).toEqual({ $ref: "#/components/schemas/SourceReferrer" });
    expect(schemas.ListLeadsResponse.properties.pagination).toEqual({ $ref: "#/components/schemas/Pagination" });
    // No component carries its own dialect or base URI.
    for (const schema of Object.values<Json>(schemas)) {
      expect(schema).not.toHaveProperty("$schema");
      expect(schema).not.toHaveProperty("$id");
    }
  });
});

describe("OpenAPI document: operations", () => {
  it("has exactly the four operations and the three aliases, with distinct operationIds and no /v1 prefix", () => {
    const expected = OPERATIONS.flatMap((op) => [op.path, ...op.aliases].map((p) => `${op.method} ${p}`)).sort();
    const documented = Object.entries<Json>(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m} ${p}`));
    expect(documented.sort()).toEqual(expected);
    const ids = documented.map((key) => {
      const [method, p] = key.split(" ");
      return doc.paths[p][method].operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
    expect(Object.keys(doc.paths).every((p) => !p.includes("/v1"))).toBe(true);
  });

  it("documents every route of app/api (the catch-all aside)", () => {
    const routes: string[] = [];
    const scan = (dir: string, url: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory() && !entry.name.startsWith("[")) scan(path.join(dir, entry.name), `${url}/${entry.name}`);
        else if (entry.name === "route.ts" && url !== "/api") routes.push(url);
      }
    };
    scan(path.join(root, "app/api"), "/api");
    expect(routes.sort()).toEqual(Object.keys(doc.paths).sort());
  });

  it("serves each alias as the same operation as its original path", () => {
    for (const op of OPERATIONS) {
      const original = doc.paths[op.path][op.method];
      for (const alias of op.aliases) {
        const { operationId, summary, description, ...same } = doc.paths[alias][op.method];
        const { operationId: _i, summary: _s, description: originalDescription, ...expected } = original;
        expect(same).toEqual(expected);
        expect(description).toContain(`Alias of \`${op.method.toUpperCase()} ${op.path}\``);
        expect(description).toContain(originalDescription);
      }
    }
  });

  it("documents the query parameters of GET /api/leads with their bounds and defaults", () => {
    const params = Object.fromEntries(doc.paths["/api/leads"].get.parameters.map((p: Json) => [p.name, p]));
    expect(Object.keys(params).sort()).toEqual(["limit", "offset", "referrer"]);
    for (const p of Object.values<Json>(params)) {
      expect(p.in).toBe("query");
      expect(p.required).toBe(false);
      expect(p.description.length).toBeGreaterThan(10);
    }
    expect(params.referrer.schema).toEqual({ type: "string", minLength: 2, maxLength: 120 });
    expect(params.limit.schema).toEqual({ type: "integer", minimum: 1, maximum: 500, default: 100 });
    expect(params.offset.schema).toEqual({ type: "integer", minimum: 0, maximum: 2147483647, default: 0 });
    for (const op of ["/api/leads/sources", "/api/leads/agents"]) expect(doc.paths[op].get.parameters).toBeUndefined();
  });

  it("documents the POST body with the spec's bounds, enums and strictness", () => {
    const body = doc.paths["/api/leads"].post.requestBody;
    expect(body.required).toBe(true);
    expect(Object.keys(body.content)).toEqual(["application/json"]);
    const schema = resolve(body.content["application/json"].schema);
    const p = schema.properties;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required.sort()).toEqual(["leadMobileNumber", "leadName", "referrer"]);
    expect(p.leadName).toMatchObject({ type: "string", minLength: 2, maxLength: 120 });
    expect(p.leadMobileNumber).toMatchObject({ type: "string", minLength: 6, maxLength: 40 });
    const [name, object] = p.referrer.anyOf;
    expect(name).toMatchObject({ type: "string", minLength: 2, maxLength: 120 });
    expect(object).toMatchObject({ type: "object", required: ["customerId"], additionalProperties: false });
    expect(object.properties.customerId).toMatchObject({ type: "string", minLength: 1, maxLength: 120 });
    const [agentString, agentInteger] = p.assignedAgentId.anyOf;
    expect(agentString).toMatchObject({ type: "string", minLength: 1, maxLength: 80, pattern: "^[A-Za-z0-9_-]*$" });
    expect(agentInteger).toMatchObject({ type: "integer", minimum: 1, maximum: 9007199254740991 });
    for (const field of ["leadState", "leadCity"]) expect(p[field]).toMatchObject({ type: "string", maxLength: 120 });
    for (const field of ["leadAddress", "remark"]) expect(p[field]).toMatchObject({ type: "string", maxLength: 500 });
    expect(p.relationship.enum).toEqual(RELATIONSHIPS);
    expect(p.projectType.enum).toEqual(PROJECT_TYPES);
    // Optional fields are never nullable.
    for (const n of walk(schema)) expect(n.type === "null" || (Array.isArray(n.type) && n.type.includes("null"))).toBe(false);
    // The rules: defaults, normalisation, referrer resolution, not idempotent, the body limit.
    for (const rule of ["`Pending`", "60 followed by 9 to 11 digits", "INVALID_REFERRER", "INVALID_AGENT", "never `null`", "Not idempotent", "1 MiB", "introducer"]) {
      expect(body.description).toContain(rule);
    }
    expect(p.relationship.description).toContain("`Other`");
    expect(p.projectType.description).toContain("`OTHERS`");
  });

  it("documents each status with its error codes as enums, and issues on INVALID_INPUT", () => {
    for (const { method, path: p, at, operation } of operationsWithAliases()) {
      const key = `${method} ${p}`;
      const expectedStatuses = [SUCCESS[key], ...new Set(EXPECTED_CODES[key].map((c) => ERROR_STATUS[c]))].sort();
      expect(Object.keys(operation.responses).map(Number).sort(), `${method} ${at}`).toEqual(expectedStatuses);
      const documented: string[] = [];
      for (const [status, ref] of Object.entries<Json>(operation.responses)) {
        if (Number(status) === SUCCESS[key]) continue;
        const response = resolve(ref);
        const schema = response.content["application/json"].schema;
        const codes = codesOf(schema);
        for (const code of codes) {
          expect(ERROR_STATUS[code as ErrorCode], `${code} under ${status}`).toBe(Number(status));
          expect(response.description).toContain(`\`${code}\``);
        }
        documented.push(...codes);
        // issues exactly where the code is INVALID_INPUT.
        for (const variant of [...walk(schema)].filter((n) => n.properties?.code)) {
          const variantCodes = resolve(variant.properties.code).enum as string[];
          if (variantCodes.includes("INVALID_INPUT")) {
            expect(variantCodes).toEqual(["INVALID_INPUT"]);
            expect(variant.required).toContain("issues");
            expect(variant.properties.issues).toMatchObject({ type: "array", items: { $ref: "#/components/schemas/Issue" } });
          } else {
            expect(variant.properties).not.toHaveProperty("issues");
          }
        }
      }
      expect(documented.sort(), `${method} ${at}`).toEqual([...EXPECTED_CODES[key]].sort());
    }
    expect(doc.components.schemas.Issue).toMatchObject({
      type: "object",
      properties: { path: { type: "string" }, message: { type: "string" } },
      required: ["path", "message"],
      additionalProperties: false,
    });
  });

  it("documents the body limit on 413 and 404/405 as a deployment that differs from the contract", () => {
    const post = doc.paths["/api/leads"].post.responses;
    expect(resolve(post[413]).description).toContain(String(MAX_BODY_BYTES));
    for (const { operation } of operationsWithAliases()) {
      expect(resolve(operation.responses[404]).description).toMatch(/deployed version differs/);
      expect(resolve(operation.responses[405]).description).toMatch(/deployed version differs/);
      expect(resolve(operation.responses[405]).headers.Allow).toBeDefined();
    }
  });

  it("has strict response schemas: no additional properties, every property required", () => {
    for (const { operation, method, at } of operationsWithAliases()) {
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        for (const node of walk(resolve(response).content["application/json"].schema)) {
          if (node.type !== "object") continue;
          const where = `${method} ${at} ${status}`;
          expect(node.additionalProperties, where).toBe(false);
          expect([...node.required].sort(), where).toEqual(Object.keys(node.properties).sort());
        }
      }
    }
  });

  it("sends Cache-Control: no-store with every response", () => {
    expect(doc.components.headers["Cache-Control"]).toMatchObject({ required: true, schema: { const: "no-store" } });
    for (const { operation } of operationsWithAliases()) {
      for (const response of Object.values<Json>(operation.responses)) {
        expect(resolve(response).headers["Cache-Control"]).toEqual({ $ref: "#/components/headers/Cache-Control" });
      }
    }
  });

  it("requires the bearer key (http bearer) on every operation", () => {
    expect(doc.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: "http", scheme: "bearer" }),
    });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const { operation } of operationsWithAliases()) expect(operation.security).toBeUndefined();
  });
});

describe("OpenAPI document: examples and guidance", () => {
  it("has a realistic example for every request and response, valid against its schema", () => {
    let count = 0;
    for (const { where, media } of mediaTypes()) {
      const examples = Object.entries<Json>(media.examples ?? {});
      expect(examples.length, where).toBeGreaterThan(0);
      const validate = schemaValidator(media.schema, `example ${where}`);
      for (const [name, example] of examples) {
        expect(example.summary, `${where} ${name}`).toBeTruthy();
        expect(validate(example.value), `${where} ${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
        count++;
      }
    }
    expect(count).toBeGreaterThan(40);
  });

  it("has request examples the service itself accepts", () => {
    const examples = doc.paths["/api/leads"].post.requestBody.content["application/json"].examples;
    for (const [name, { value }] of Object.entries<Json>(examples)) {
      expect(leads.createLeadBody.safeParse(value).success, name).toBe(true);
    }
  });

  it("carries the spec's integration guidance", () => {
    const info = doc.info.description as string;
    for (const text of [
      "Authorization: Bearer",
      "not a JWT",
      "Cache-Control: no-store",
      "GET may be retried",
      "bounded backoff",
      "POST is never replayed automatically",
      "ledger of the returned `referralId` and `leadCustomerId`",
      "until `pagination.hasMore` is false",
      "deduplicate by `referralId`",
      "Update, delete, reassignment, single-lead lookup, full activity or status history, change feed, synchronisation with\nexternal ad platforms, and any messaging notification",
      "no idempotency keys",
      "no `/v1` prefix",
      "404 `NOT_FOUND` or 405 `METHOD_NOT_ALLOWED`",
    ]) {
      expect(info).toContain(text);
    }
  });

  it("shows a curl example, without a real key, in every operation's description", () => {
    for (const { operation, method, at } of operationsWithAliases()) {
      expect(operation.description, `${method} ${at}`).toMatch(/```sh\ncurl [^`]*Authorization: Bearer \$LEADS_API_KEY/);
    }
  });
});
