import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  CLIENT_CONTRACT_PATH,
  CLIENT_TYPES_PATH,
  DOCUMENT_PATH,
  renderClientContract,
  renderClientTypes,
} from "@/scripts/client-types";

describe("typed client", () => {
  it("has the types of the OpenAPI document the build writes (public/openapi.json)", async () => {
    expect(existsSync(DOCUMENT_PATH), "public/openapi.json is missing: run `npm run build`").toBe(true);
    const expected = await renderClientTypes(JSON.parse(readFileSync(DOCUMENT_PATH, "utf8")));
    // On failure: `npm run build && npm run client:types`, then review and commit lib/client/openapi.ts.
    expect(readFileSync(CLIENT_TYPES_PATH, "utf8")).toBe(expected);
  });

  it("has the error table and the success bodies' requirements of the same document (lib/client/contract.ts)", () => {
    const expected = renderClientContract(JSON.parse(readFileSync(DOCUMENT_PATH, "utf8")));
    // On failure: `npm run build && npm run client:types`, then review and commit lib/client/contract.ts.
    expect(readFileSync(CLIENT_CONTRACT_PATH, "utf8")).toBe(expected);
  });
});
