import { describe, expect, it } from "vitest";
import { call, TEST_KEY } from "../helpers/api";
import { withKeys } from "../helpers/key";
import { PREVIOUS_KEY, server, narrow, setUpOperationsServers } from "../helpers/operations-servers";

setUpOperationsServers();

describe("key rotation", () => {
  it("accepts the previous key while it is set, never the wrong one; no key configured is still 503", async () => {
    expect((await call("GET", "/api/leads/sources", { baseUrl: server.baseUrl, key: PREVIOUS_KEY })).status).toBe(200);
    expect((await call("GET", "/api/leads/sources", { baseUrl: server.baseUrl, key: TEST_KEY })).status).toBe(200);
    expect((await call("GET", "/api/leads/sources", { baseUrl: server.baseUrl, key: `${PREVIOUS_KEY}x` })).status).toBe(
      401,
    );
    // The narrow server has no previous key: the old key is refused there.
    expect((await call("GET", "/api/leads/sources", { baseUrl: narrow.baseUrl, key: PREVIOUS_KEY })).status).toBe(401);
    // In-process: a previous key alone configures nothing.
    const res = await withKeys({ LEADS_API_KEY: undefined, LEADS_API_KEY_PREVIOUS: PREVIOUS_KEY }, () =>
      call("GET", "/api/leads/sources", { key: PREVIOUS_KEY }),
    );
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: "API_NOT_CONFIGURED" });
  });
});
