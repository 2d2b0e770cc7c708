import { describe, expect, it } from "vitest";
import { POST as postRoute } from "@/app/api/leads/route";
import { MAX_BODY_BYTES } from "@/lib/api/errors";
import { post, TEST_KEY } from "../helpers/api";
import { expectError, expectNoWrites } from "../helpers/expect-api";
import { OPTIONAL_FIELDS } from "../helpers/oracle";
import { db, MIN, rawPost, BROKEN_JSON, setUpCreateLead } from "../helpers/create-lead-fixture";

setUpCreateLead();

describe("request body", () => {
  it.each([
    ["an empty body", ""],
    ["white space only", "  \n "],
    ["an unfinished object", BROKEN_JSON],
    ["single quotes", "{'leadName': 'Ali'}"],
    ["a trailing comma", '{"leadName": "Ali bin Abu",}'],
    ["a bare word", "undefined"],
    ["NaN", "NaN"],
    ["two documents", '{"a":1}{"b":2}'],
  ])("answers %s with 400 INVALID_JSON", async (_, body) => {
    expectError(await expectNoWrites(db.sql, () => post(body)), 400, "INVALID_JSON");
  });

  it("answers a missing body with 400 INVALID_JSON", async () => {
    expectError(
      await expectNoWrites(db.sql, () => rawPost({ headers: { "content-type": "application/json" } })),
      400,
      "INVALID_JSON",
    );
  });

  it("answers bytes that are not UTF-8 with 400 INVALID_JSON", async () => {
    const json = new TextEncoder().encode(JSON.stringify({ ...MIN, leadName: "Ali XX" }));
    const at = json.indexOf("X".charCodeAt(0));
    json.set([0xff, 0xfe], at);
    const res = await expectNoWrites(db.sql, () =>
      rawPost({ headers: { "content-type": "application/json" }, body: json }),
    );
    expectError(res, 400, "INVALID_JSON");
  });

  it('answers JSON that is not an object with 400 INVALID_INPUT at path ""', async () => {
    for (const body of ["null", "[]", '"Ali"', "42", "true"]) {
      const res = await expectNoWrites(db.sql, () => post(body));
      expectError(res, 400, "INVALID_INPUT");
      expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual([""]);
    }
  });

  /** A valid JSON body of exactly `bytes` bytes (the remark is too long for the schema, which is fine here). */
  function bodyOfSize(bytes: number): string {
    const empty = JSON.stringify({ ...MIN, remark: "" });
    const body = JSON.stringify({ ...MIN, remark: "x".repeat(bytes - empty.length) });
    expect(Buffer.byteLength(body)).toBe(bytes);
    return body;
  }

  it("reads a body of exactly 1 MiB (then validates it)", async () => {
    const res = await expectNoWrites(db.sql, () => post(bodyOfSize(MAX_BODY_BYTES)));
    expectError(res, 400, "INVALID_INPUT");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(["remark"]);
  });

  it("answers a body over 1 MiB with 413 PAYLOAD_TOO_LARGE", async () => {
    for (const size of [MAX_BODY_BYTES + 1, 5 * MAX_BODY_BYTES]) {
      expectError(await expectNoWrites(db.sql, () => post(bodyOfSize(size))), 413, "PAYLOAD_TOO_LARGE");
    }
  });

  it("answers a streamed body over 1 MiB (no Content-Length) with 413 PAYLOAD_TOO_LARGE", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 2 * MAX_BODY_BYTES) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const request = new Request("http://localhost/api/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(request.headers.get("content-length")).toBeNull();
    const response = await expectNoWrites(db.sql, () => postRoute(request));
    const text = await response.text();
    expectError(
      { status: response.status, headers: response.headers, body: JSON.parse(text), text },
      413,
      "PAYLOAD_TOO_LARGE",
    );
  });

  it("answers an invalid field with 400 INVALID_INPUT and one issue per offending field", async () => {
    const res = await expectNoWrites(db.sql, () =>
      post({ ...MIN, leadName: " A ", leadMobileNumber: "+65 9123 4567", introducer: "Ali", remark: null }),
    );
    expectError(res, 400, "INVALID_INPUT");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual([
      "leadName",
      "leadMobileNumber",
      "remark",
      "introducer",
    ]);
  });

  it.each(["introducer", "source", "assigned_agent", "status", "campaignId"])(
    "rejects the unknown property %s (rule 7)",
    async (name) => {
      const res = await expectNoWrites(db.sql, () => post({ ...MIN, [name]: "x" }));
      expectError(res, 400, "INVALID_INPUT");
      expect(res.body.issues).toEqual([{ path: name, message: expect.any(String) }]);
    },
  );

  it("rejects __proto__ and constructor sent in the JSON text", async () => {
    for (const name of ["__proto__", "constructor"]) {
      const text = `{"leadName":"Ali bin Abu","leadMobileNumber":"0123456789","referrer":"Facebook Ads","${name}":{"status":"Assigned"}}`;
      const res = await expectNoWrites(db.sql, () => post(text));
      expectError(res, 400, "INVALID_INPUT");
      expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual([name]);
    }
  });

  it.each(OPTIONAL_FIELDS)("rejects null for the optional %s (rule 7)", async (field) => {
    const res = await expectNoWrites(db.sql, () => post({ ...MIN, [field]: null }));
    expectError(res, 400, "INVALID_INPUT");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual([field]);
  });

  it.each(["", "   "])("rejects the empty assignedAgentId %j (rule 7)", async (id) => {
    const res = await expectNoWrites(db.sql, () => post({ ...MIN, assignedAgentId: id }));
    expectError(res, 400, "INVALID_INPUT");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(["assignedAgentId"]);
  });
});
