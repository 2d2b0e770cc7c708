import { readFileSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GET as openApiRoute } from "@/app/openapi.json/route";
import { DOCUMENT_HEADERS } from "@/lib/openapi/docs-headers";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import * as leads from "@/lib/leads/schemas";
import { root, doc, type Json, OPERATIONS, HEALTH } from "../helpers/openapi-document";

describe("OpenAPI document: generation", () => {
  it("is assembled by createSwaggerSpec from the typed operations, each path served by its route (a broken build step fails here)", () => {
    const generated = buildOpenApiDocument();
    expect(generated.openapi).toBe("3.1.0");
    expect(generated.info.version).toBe("1.1.0");
    expect(Object.keys(generated.paths).sort()).toEqual(
      [...new Set([...HEALTH, ...OPERATIONS.map((op) => op.path)])].sort(),
    );
    for (const [p, item] of Object.entries<Json>(generated.paths)) {
      const route = readFileSync(path.join(root, `app${p}/route.ts`), "utf8");
      // The operations are lib/openapi/<noun>/<verb>.ts; an @openapi comment in a route would be merged over them.
      expect(route).not.toContain("@openapi");
      for (const method of Object.keys(item))
        expect(route).toMatch(new RegExp(`\\b${method.toUpperCase()}: (apiRoute|publicRoute)\\(`));
    }
  });

  it("names the server, a contact and a license for integrators", () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: "/" })]);
    expect(doc.info.contact).toEqual(expect.objectContaining({ email: expect.any(String) }));
    expect(doc.info.license).toEqual(expect.objectContaining({ name: expect.any(String), url: expect.any(String) }));
  });

  it("validates against the OpenAPI 3.1 schema (@seriousme/openapi-schema-validator)", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("is what /openapi.json serves, with its headers and an ETag a cache revalidates with (304)", async () => {
    const res = openApiRoute(new Request("http://x/openapi.json"));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(doc);
    expect(Object.fromEntries(res.headers)).toMatchObject({
      "cache-control": "no-cache",
      "content-security-policy": DOCUMENT_HEADERS["Content-Security-Policy"],
      "content-type": "application/json; charset=utf-8",
      "x-content-type-options": "nosniff",
    });
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = openApiRoute(new Request("http://x/openapi.json", { headers: { "if-none-match": `W/${etag}` } }));
    expect({ status: again.status, etag: again.headers.get("etag"), body: await again.text() }).toEqual({
      status: 304,
      etag,
      body: "",
    });
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
