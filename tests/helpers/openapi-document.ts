import path from "node:path";
import { expect } from "vitest";
import { openApiDocument } from "./openapi";

/**
 * What the checks of the OpenAPI document (lib/openapi/document.ts) against the spec and its own schemas share
 * (tests/docs/openapi-*.unit.test.ts): the document, its operations and walks over its schemas.
 */

export const root = path.resolve(import.meta.dirname, "../..");
export const doc = openApiDocument();
export type Json = Record<string, any>;

export const OPERATIONS = [
  { method: "get", path: "/api/leads/sources", aliases: ["/api/leads/ads", "/api/sources"] },
  { method: "get", path: "/api/leads/agents", aliases: ["/api/agents"] },
  { method: "post", path: "/api/leads", aliases: [] },
  { method: "get", path: "/api/leads", aliases: [] },
] as const;

/** Public health checks (docs/operating.md, "Health checks"), outside the contract's operations. */
export const HEALTH = ["/api/health/live", "/api/health/ready"];

/** Answers without a body: the sources list unchanged since the ETag the caller sent. */
export const NOT_MODIFIED: Record<string, number> = { "get /api/leads/sources": 304 };

export const SUCCESS: Record<string, number> = {
  "get /api/leads/sources": 200,
  "get /api/leads/agents": 200,
  "post /api/leads": 201,
  "get /api/leads": 200,
};

export function resolve(node: Json): Json {
  if (typeof node?.$ref !== "string") return node;
  return node.$ref
    .slice(2)
    .split("/")
    .reduce((n: any, key: string) => n[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

/** Every schema node reachable from `schema`, following component references once each. */
export function* walk(schema: unknown, seen = new Set<unknown>()): Generator<Json> {
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

export const operationsWithAliases = () =>
  OPERATIONS.map((op) => ({ ...op, at: op.path, operation: doc.paths[op.path][op.method] as Json }));

/** Error codes an error response's schema allows: the shared Error schema, narrowed to the codes of its status. */
export function codesOf(schema: Json): string[] {
  expect(schema).toMatchObject({ type: "object", allOf: [{ $ref: "#/components/schemas/Error" }] });
  return schema.properties.code.enum;
}

export const mediaTypes = function* (): Generator<{ where: string; media: Json }> {
  for (const [p, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (op.requestBody) yield { where: `${method} ${p} request`, media: op.requestBody.content["application/json"] };
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (status === "304") continue; // no body
        yield { where: `${method} ${p} ${status}`, media: resolve(response).content["application/json"] };
      }
    }
  }
};
