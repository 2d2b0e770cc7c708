import { describe, expect, it } from "vitest";
import * as leads from "@/lib/leads/schemas";
import { schemaValidator } from "../helpers/openapi";
import { doc, type Json, resolve, operationsWithAliases, mediaTypes } from "../helpers/openapi-document";

describe("OpenAPI document: examples and guidance", () => {
  it("has a realistic example for every request and response, valid against its schema", () => {
    let count = 0;
    for (const { where, media } of mediaTypes()) {
      const examples = Object.entries<Json>(media.examples ?? {}).map(
        ([name, example]) => [name, resolve(example)] as const,
      );
      expect(examples.length, where).toBeGreaterThan(0);
      const validate = schemaValidator(media.schema, `example ${where}`);
      for (const [name, example] of examples) {
        expect(example.summary, `${where} ${name}`).toBeTruthy();
        expect(validate(example.value), `${where} ${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
        count++;
      }
    }
    // 38: the four operations (aliases are not paths of their own), every code of each.
    expect(count).toBeGreaterThanOrEqual(38);
  });

  it("links a created lead to the listing of its referrer's leads", () => {
    expect(doc.paths["/api/leads"].post.responses[201].links).toEqual({
      listLeadsOfReferrer: expect.objectContaining({
        operationId: "listLeads",
        parameters: { referrer: "$response.body#/lead/referrer/customerId" },
      }),
    });
  });

  it("has request examples the service itself accepts", () => {
    const examples = doc.paths["/api/leads"].post.requestBody.content["application/json"].examples;
    for (const [name, example] of Object.entries<Json>(examples)) {
      expect(leads.createLeadBody.safeParse(resolve(example).value).success, name).toBe(true);
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
      expect(operation.description, `${method} ${at}`).toMatch(
        /```sh\ncurl [^`]*Authorization: Bearer \$LEADS_API_KEY/,
      );
    }
  });
});
