import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  CLIENT_CONTRACT_PATH,
  CLIENT_TYPES_PATH,
  renderClientContract,
  renderClientTypes,
  servedDocument,
} from "@/scripts/client-types";

describe("typed client", () => {
  it("has the types of the OpenAPI document /openapi.json serves", async () => {
    const expected = await renderClientTypes(servedDocument());
    // On failure: `npm run client:types`, then review and commit lib/client/openapi.ts.
    expect(readFileSync(CLIENT_TYPES_PATH, "utf8")).toBe(expected);
  });

  it("has the error table and the success bodies' requirements of the same document (lib/client/contract.ts)", () => {
    const expected = renderClientContract(servedDocument());
    // On failure: `npm run client:types`, then review and commit lib/client/contract.ts.
    expect(readFileSync(CLIENT_CONTRACT_PATH, "utf8")).toBe(expected);
  });
});
