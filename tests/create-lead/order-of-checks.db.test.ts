import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "@/lib/api/errors";
import { post } from "../helpers/api";
import { withKeys } from "../helpers/key";
import { expectError, expectNoWrites } from "../helpers/expect-api";
import { db, personId, MIN, sourcesNamed, BROKEN_JSON, setUpCreateLead } from "../helpers/create-lead-fixture";

setUpCreateLead();

describe("order of checks (decisions.md 2), with requests that break several rules at once", () => {
  it("503 API_NOT_CONFIGURED comes first, before the key, content type and body are looked at", async () => {
    for (const key of [undefined, ""]) {
      await withKeys({ LEADS_API_KEY: key }, () =>
        expectNoWrites(db.sql, async () => {
          expectError(
            await post(BROKEN_JSON, { key: null, headers: { "content-type": "text/plain" } }),
            503,
            "API_NOT_CONFIGURED",
          );
          expectError(
            await post(BROKEN_JSON, { key: "wrong", headers: { "content-type": "text/plain" } }),
            503,
            "API_NOT_CONFIGURED",
          );
          // An empty configured key is no key: an empty bearer value does not match it.
          expectError(await post(MIN, { headers: { authorization: "Bearer " } }), 503, "API_NOT_CONFIGURED");
          expectError(await post(MIN), 503, "API_NOT_CONFIGURED");
        }),
      );
    }
  });

  it("401 comes before 415, 400 and 413", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(
        await post(BROKEN_JSON, { key: "wrong", headers: { "content-type": "text/plain" } }),
        401,
        "UNAUTHORIZED",
      );
      expectError(await post(BROKEN_JSON, { key: null }), 401, "UNAUTHORIZED");
      expectError(await post({ ...MIN, leadName: "A", introducer: "x" }, { key: "wrong" }), 401, "UNAUTHORIZED");
      expectError(await post({ ...MIN, remark: "x".repeat(2 * MAX_BODY_BYTES) }, { key: null }), 401, "UNAUTHORIZED");
    });
  });

  it("415 comes before 400 INVALID_JSON and INVALID_INPUT", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(await post(BROKEN_JSON, { headers: { "content-type": "text/plain" } }), 415, "INVALID_CONTENT_TYPE");
      expectError(
        await post({ leadName: "A" }, { headers: { "content-type": "text/plain" } }),
        415,
        "INVALID_CONTENT_TYPE",
      );
    });
  });

  it("400 INVALID_JSON comes before INVALID_INPUT", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(await post(BROKEN_JSON), 400, "INVALID_JSON");
    });
  });

  it("400 INVALID_INPUT comes before 422 INVALID_REFERRER and INVALID_AGENT", async () => {
    const res = await expectNoWrites(db.sql, () =>
      post({ ...MIN, leadName: "A", referrer: { customerId: "cus_does_not_exist" }, assignedAgentId: "plat_nobody" }),
    );
    expectError(res, 400, "INVALID_INPUT");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(["leadName"]);
  });

  it("422 INVALID_REFERRER comes before 422 INVALID_AGENT", async () => {
    const res = await expectNoWrites(db.sql, () =>
      post({ ...MIN, referrer: { customerId: "cus_does_not_exist" }, assignedAgentId: "plat_nobody" }),
    );
    expectError(res, 422, "INVALID_REFERRER");
  });

  it("422 INVALID_AGENT comes after a referrer that resolves, also one that would be a new source", async () => {
    await expectNoWrites(db.sql, async () => {
      expectError(
        await post({ ...MIN, referrer: { customerId: personId }, assignedAgentId: "plat_nobody" }),
        422,
        "INVALID_AGENT",
      );
      expectError(
        await post({ ...MIN, referrer: "Never Created Expo", assignedAgentId: "plat_admin" }),
        422,
        "INVALID_AGENT",
      );
    });
    expect(await sourcesNamed("Never Created Expo")).toEqual([]);
  });
});
