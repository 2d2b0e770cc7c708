import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { expectError } from "../helpers/expect-api";
import { notConfigured } from "../helpers/key";
import { arrangeListedLeads } from "../helpers/listed-leads";

arrangeListedLeads();

describe("authentication", () => {
  it("answers 401 UNAUTHORIZED to a wrong, missing or non-bearer key, before looking at the query", async () => {
    for (const query of ["", "?limit=5", "?limit=0&foo=1"]) {
      for (const options of [
        { key: "wrong-key" },
        { key: "test-key-0123456789x" },
        { key: null },
        { headers: { authorization: "test-key-0123456789" } },
      ]) {
        const res = await call("GET", `/api/leads${query}`, options);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: expect.any(String), code: "UNAUTHORIZED", requestId: expect.any(String) });
        expect(res.headers.get("cache-control")).toBe("no-store");
      }
    }
  });

  it("does not take the key from the URL", async () => {
    const res = await call("GET", "/api/leads?key=test-key-0123456789", { key: null });
    expect(res.status).toBe(401);
  });

  it("answers 503 API_NOT_CONFIGURED when the server has no key", async () => {
    expectError(await notConfigured(() => call("GET", "/api/leads")), 503, "API_NOT_CONFIGURED");
  });
});
