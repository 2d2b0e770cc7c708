import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import {
  CLIENT_CONTRACT_PATH,
  CLIENT_TYPES_PATH,
  renderClientContract,
  renderClientTypes,
} from "@/scripts/client-types";

/** The document as the build writes it to public/openapi.json (tests/e2e/docs.test.ts checks the served one). */
const document = () => JSON.parse(JSON.stringify(buildOpenApiDocument()));

describe("typed client", () => {
  it("has the types of the OpenAPI document the build writes (public/openapi.json)", async () => {
    const expected = await renderClientTypes(document());
    // On failure: `npm run build && npm run client:types`, then review and commit lib/client/openapi.ts.
    expect(readFileSync(CLIENT_TYPES_PATH, "utf8")).toBe(expected);
  });

  it("has the error table and the success bodies' requirements of the same document (lib/client/contract.ts)", () => {
    const expected = renderClientContract(document());
    // On failure: `npm run build && npm run client:types`, then review and commit lib/client/contract.ts.
    expect(readFileSync(CLIENT_CONTRACT_PATH, "utf8")).toBe(expected);
  });
});
