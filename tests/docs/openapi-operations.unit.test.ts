import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_STATUS, MAX_BODY_BYTES, type ErrorCode } from "@/lib/api/errors";
import { EXPECTED_CODES, PROJECT_TYPES, RELATIONSHIPS } from "../helpers/oracle";
import {
  root,
  doc,
  type Json,
  OPERATIONS,
  HEALTH,
  NOT_MODIFIED,
  SUCCESS,
  resolve,
  walk,
  operationsWithAliases,
  codesOf,
} from "../helpers/openapi-document";

describe("OpenAPI document: operations", () => {
  it("has exactly the four operations and the two health checks, with distinct operationIds and no /v1 prefix", () => {
    const expected = [...OPERATIONS.map((op) => `${op.method} ${op.path}`), ...HEALTH.map((p) => `get ${p}`)].sort();
    const documented = Object.entries<Json>(doc.paths).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m} ${p}`),
    );
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
        if (entry.isDirectory() && !entry.name.startsWith("["))
          scan(path.join(dir, entry.name), `${url}/${entry.name}`);
        else if (entry.name === "route.ts" && url !== "/api") routes.push(url);
      }
    };
    scan(path.join(root, "app/api"), "/api");
    const aliases = OPERATIONS.flatMap((op) => doc.paths[op.path][op.method]["x-aliases"] ?? []);
    expect(routes.sort()).toEqual([...Object.keys(doc.paths), ...aliases].sort());
  });

  it("names each alias on its operation (x-aliases and the description), not as a path of its own", () => {
    for (const op of OPERATIONS) {
      const operation = doc.paths[op.path][op.method];
      expect(operation["x-aliases"] ?? [], op.path).toEqual(op.aliases);
      for (const alias of op.aliases) {
        expect(doc.paths[alias]).toBeUndefined();
        expect(operation.description).toContain(`\`${op.method.toUpperCase()} ${alias}\``);
      }
    }
  });

  it("documents the query parameters of GET /api/leads with their bounds and defaults", () => {
    const params = Object.fromEntries(
      doc.paths["/api/leads"].get.parameters.map((p: Json) => [resolve(p).name, resolve(p)]),
    );
    expect(Object.keys(params).sort()).toEqual(["limit", "offset", "referrer"]);
    for (const p of Object.values<Json>(params)) {
      expect(p.in).toBe("query");
      expect(p.required).toBe(false);
      expect(p.description.length).toBeGreaterThan(10);
    }
    // Trimmed, then 2 to 120 characters: a pattern over the value as sent (white space around allowed), no U+0000.
    expect(params.referrer.schema).toEqual({
      type: "string",
      minLength: 2,
      pattern: expect.stringContaining("{0,118}"),
    });
    expect(new RegExp(params.referrer.schema.pattern, "u").test("  ")).toBe(false);
    expect(params.limit.schema).toEqual({ type: "integer", minimum: 1, maximum: 500, default: 100 });
    expect(params.offset.schema).toEqual({ type: "integer", minimum: 0, maximum: 2147483647, default: 0 });
    expect(doc.paths["/api/leads/agents"].get.parameters).toBeUndefined();
    // The sources list takes no query parameter; only the conditional header.
    expect(doc.paths["/api/leads/sources"].get.parameters.map(resolve)).toEqual([
      expect.objectContaining({ name: "If-None-Match", in: "header", required: false }),
    ]);
  });

  it("documents the POST body with the spec's bounds, enums and strictness", () => {
    const body = doc.paths["/api/leads"].post.requestBody;
    expect(body.required).toBe(true);
    expect(Object.keys(body.content)).toEqual(["application/json"]);
    const schema = resolve(body.content["application/json"].schema);
    const p = schema.properties;
    expect(schema.additionalProperties).toBe(false);
    expect([...schema.required].sort()).toEqual(["leadMobileNumber", "leadName", "referrer"]);
    // Length bounds apply after trimming: patterns over the value as sent, no maxLength that would count the white
    // space around it (tests/docs/document-matches-server.unit.test.ts checks each pattern against the server's
    // answers).
    const trimmedBounds = (min: number, max: number) => ({
      type: "string",
      pattern: expect.stringContaining(`{${Math.max(min - 2, 0)},${max - 2}}`),
    });
    expect(p.leadName).toMatchObject({ ...trimmedBounds(2, 120), minLength: 2 });
    expect(p.leadMobileNumber).toMatchObject({
      type: "string",
      minLength: 6,
      pattern: expect.stringContaining("{4,38}"),
    });
    const [name, object] = p.referrer.anyOf;
    expect(name).toMatchObject({ ...trimmedBounds(2, 120), minLength: 2 });
    expect(object).toMatchObject({ type: "object", required: ["customerId"], additionalProperties: false });
    expect(object.properties.customerId).toMatchObject({ ...trimmedBounds(1, 120), minLength: 1 });
    const [agentString, agentInteger] = p.assignedAgentId.anyOf;
    expect(agentString).toMatchObject({ type: "string", minLength: 1, pattern: "^\\s*[A-Za-z0-9_-]{1,80}\\s*$" });
    expect(agentInteger).toMatchObject({ type: "integer", minimum: 1, maximum: 9007199254740991 });
    for (const field of ["leadState", "leadCity"]) expect(p[field]).toMatchObject(trimmedBounds(0, 120));
    for (const field of ["leadAddress", "remark"]) expect(p[field]).toMatchObject(trimmedBounds(0, 500));
    for (const field of ["leadName", "leadMobileNumber", "leadState", "leadCity", "leadAddress", "remark"]) {
      expect(p[field]).not.toHaveProperty("maxLength");
    }
    for (const field of ["leadName", "leadState", "leadCity", "leadAddress", "remark"])
      expect(p[field].description).toContain("U+0000");
    expect(p.relationship.enum).toEqual(RELATIONSHIPS);
    expect(p.projectType.enum).toEqual(PROJECT_TYPES);
    // Optional fields are never nullable.
    for (const n of walk(schema))
      expect(n.type === "null" || (Array.isArray(n.type) && n.type.includes("null"))).toBe(false);
    // The rules: defaults, normalisation, referrer resolution, not idempotent, the body limit.
    // The mobile rule is stated once, on the field.
    expect(p.leadMobileNumber.description).toContain("60 followed by 9 to 11 digits");
    expect(body.description).not.toContain("60 followed by");
    for (const rule of [
      "`Pending`",
      "INVALID_REFERRER",
      "INVALID_AGENT",
      "never `null`",
      "Not idempotent",
      "1 MiB",
      "introducer",
    ]) {
      expect(body.description).toContain(rule);
    }
    expect(p.relationship.description).toContain("`Other`");
    expect(p.projectType.description).toContain("`OTHERS`");
  });

  it("documents each status with its error codes as enums, and issues on INVALID_INPUT", () => {
    for (const { method, path: p, at, operation } of operationsWithAliases()) {
      const key = `${method} ${p}`;
      const expectedStatuses = [
        SUCCESS[key],
        ...(key in NOT_MODIFIED ? [NOT_MODIFIED[key]] : []),
        ...new Set(EXPECTED_CODES[key].map((c) => ERROR_STATUS[c])),
      ].sort();
      expect(Object.keys(operation.responses).map(Number).sort(), `${method} ${at}`).toEqual(expectedStatuses);
      const documented: string[] = [];
      for (const [status, ref] of Object.entries<Json>(operation.responses)) {
        if (Number(status) === SUCCESS[key] || Number(status) === NOT_MODIFIED[key]) continue;
        const response = resolve(ref);
        const schema = response.content["application/json"].schema;
        const codes = codesOf(schema);
        for (const code of codes) {
          expect(ERROR_STATUS[code as ErrorCode], `${code} under ${status}`).toBe(Number(status));
          expect(response.description).toContain(`\`${code}\``);
        }
        documented.push(...codes);
      }
      expect(documented.sort(), `${method} ${at}`).toEqual([...EXPECTED_CODES[key]].sort());
    }
    // One Error schema with one ErrorCode enum for every error response; issues exactly where the code is
    // INVALID_INPUT.
    const { Error: error, ErrorCode: errorCode } = doc.components.schemas;
    expect(errorCode.enum).toEqual(Object.keys(ERROR_STATUS));
    expect(error).toMatchObject({
      type: "object",
      properties: {
        code: { $ref: "#/components/schemas/ErrorCode" },
        issues: { type: "array", items: { $ref: "#/components/schemas/Issue" } },
      },
      required: ["error", "code", "requestId"],
      additionalProperties: false,
      if: { type: "object", properties: { code: { enum: ["INVALID_INPUT"] } } },
      then: { required: ["issues"] },
      else: { properties: { issues: false } },
    });
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
        if (status === "304") continue; // no body
        for (const node of walk(resolve(response).content["application/json"].schema)) {
          // Refinements of an object, not objects: a response's narrowing of Error's codes, Error's INVALID_INPUT test.
          const { if: test, then, else: otherwise } = doc.components.schemas.Error;
          if (node.type !== "object" || node.allOf || [test, then, otherwise].includes(node)) continue;
          const where = `${method} ${at} ${status}`;
          expect(node.additionalProperties, where).toBe(false);
          // Error's issues are the one optional property: required exactly on INVALID_INPUT (if/then/else).
          const optional = node === doc.components.schemas.Error ? ["issues"] : [];
          expect([...node.required, ...optional].sort(), where).toEqual(Object.keys(node.properties).sort());
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

  it("documents the health checks as public, with X-Request-Id and no-store on every answer", () => {
    expect(doc.components.headers["X-Request-Id"]).toMatchObject({ required: true });
    for (const p of HEALTH) {
      const operation = doc.paths[p].get;
      expect(operation.security, p).toEqual([]);
      for (const response of Object.values<Json>(operation.responses).map(resolve)) {
        expect(response.headers, p).toMatchObject({
          "Cache-Control": { $ref: "#/components/headers/Cache-Control" },
          "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
        });
      }
    }
    expect(Object.keys(doc.paths["/api/health/ready"].get.responses)).toEqual(["200", "400", "404", "405", "503"]);
  });
});
