import { describe, expect, it } from "vitest";
import { call, post, TEST_KEY } from "../helpers/api";
import { expectError, expectNoWrites } from "../helpers/expect-api";
import { db, MIN, created, rawPost, setUpCreateLead } from "../helpers/create-lead-fixture";

setUpCreateLead();

describe("authentication", () => {
  it.each(["Bearer", "bearer", "BEARER", "BeArEr"])(
    "accepts the scheme written %j (case-insensitive)",
    async (scheme) => {
      const lead = created(await post(MIN, { headers: { authorization: `${scheme} ${TEST_KEY}` } }));
      expect(lead.status).toBe("Pending");
    },
  );

  it.each([
    ["a wrong key", `Bearer wrong-key`],
    ["the key in another case", `Bearer ${TEST_KEY.toUpperCase()}`],
    ["the key with one more character", `Bearer ${TEST_KEY}x`],
    ["a prefix of the key", `Bearer ${TEST_KEY.slice(0, -1)}`],
    ["the scheme without a key", "Bearer"],
    ["the key without a scheme", TEST_KEY],
    ["another scheme", `Basic ${Buffer.from(`user:${TEST_KEY}`).toString("base64")}`],
    ["the key under another scheme", `Token ${TEST_KEY}`],
  ])("refuses %s with 401", async (_, authorization) => {
    const res = await expectNoWrites(db.sql, () => post(MIN, { headers: { authorization } }));
    expectError(res, 401, "UNAUTHORIZED");
  });

  it("refuses a missing Authorization header with 401", async () => {
    expectError(await expectNoWrites(db.sql, () => post(MIN, { key: null })), 401, "UNAUTHORIZED");
  });

  it.each(["key", "api_key", "apiKey", "access_token", "token", "LEADS_API_KEY", "authorization"])(
    "never authenticates with the key in the query string (?%s=…)",
    async (name) => {
      const res = await expectNoWrites(db.sql, () =>
        call("POST", `/api/leads?${name}=${encodeURIComponent(TEST_KEY)}`, { body: MIN, key: null }),
      );
      expectError(res, 401, "UNAUTHORIZED");
    },
  );

  it("never authenticates with the key in a cookie or another header", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(
        await post(MIN, { key: null, headers: { cookie: `key=${TEST_KEY}; token=${TEST_KEY}` } }),
        401,
        "UNAUTHORIZED",
      );
      expectError(await post(MIN, { key: null, headers: { "x-api-key": TEST_KEY } }), 401, "UNAUTHORIZED");
    });
  });
});

describe("content type (spec Authentication 6, decisions.md 3)", () => {
  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "Application/Json;charset=UTF-8",
  ])("accepts %j", async (contentType) => {
    created(await post(MIN, { headers: { "content-type": contentType } }));
  });

  it.each([
    "text/plain",
    "application/jsonx",
    "application/json-patch+json",
    "application/vnd.api+json",
    "text/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "",
  ])("refuses %j with 415", async (contentType) => {
    const res = await expectNoWrites(db.sql, () => post(MIN, { headers: { "content-type": contentType } }));
    expectError(res, 415, "INVALID_CONTENT_TYPE");
  });

  it("refuses a request without Content-Type with 415", async () => {
    const res = await expectNoWrites(db.sql, async () => {
      const body = new TextEncoder().encode(JSON.stringify(MIN));
      const probe = new Request("http://localhost/api/leads", { method: "POST", body });
      expect(probe.headers.get("content-type")).toBeNull();
      return rawPost({ body });
    });
    expectError(res, 415, "INVALID_CONTENT_TYPE");
  });
});
