import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "@/lib/api/errors";
import { validLead } from "../helpers/lead";
import { TEST_KEY } from "../helpers/api";
import {
  UUID,
  server,
  send,
  auth,
  jsonBody,
  lead,
  setUpOperationsServers,
  PREVIOUS_KEY,
} from "../helpers/operations-servers";

setUpOperationsServers();

describe("request ids", () => {
  it("are on every answer, every status and the health checks, and in error bodies", async () => {
    const cases: [string, string, Record<string, string>, string | undefined, number][] = [
      ["GET", "/api/leads/sources", auth(), undefined, 200],
      ["POST", "/api/leads", jsonBody(), lead(), 201],
      ["GET", "/api/leads?limit=0", auth(), undefined, 400],
      ["GET", "/api/leads/agents", {}, undefined, 401],
      ["GET", "/api/nowhere", {}, undefined, 404],
      ["DELETE", "/api/leads", auth(), undefined, 405],
      ["POST", "/api/leads", { ...jsonBody(), "content-length": String(MAX_BODY_BYTES + 1) }, "{}", 413],
      ["POST", "/api/leads", { ...auth(), "content-type": "text/plain" }, "{}", 415],
      [
        "POST",
        "/api/leads",
        jsonBody(),
        JSON.stringify(
          validLead({
            leadName: "No Such Agent",
            referrer: "Operations Fair",
            assignedAgentId: "nobody-404",
          }),
        ),
        422,
      ],
      ["GET", "/api/health/live", {}, undefined, 200],
      ["GET", "/api/health/ready", {}, undefined, 200],
    ];
    for (const [method, path, headers, body, status] of cases) {
      const answer = await send(server.baseUrl, method, path, { headers, body });
      const id = answer.headers["x-request-id"];
      expect({ method, path, status: answer.status, id: UUID.test(String(id)) }).toEqual({
        method,
        path,
        status,
        id: true,
      });
      if (status >= 400) expect(answer.body.requestId).toBe(id);
    }
  });

  it("keep a caller's valid id and replace any other", async () => {
    const valid = ["a", "abc-DEF_123.x:y", "9".repeat(128), "0f8fad5b-d9cb-469f-a165-70867728950e"];
    for (const id of valid) {
      const answer = await send(server.baseUrl, "GET", "/api/nowhere", { headers: { "x-request-id": id } });
      expect(answer.headers["x-request-id"]).toBe(id);
      expect(answer.body.requestId).toBe(id);
    }
    const invalid = ["9".repeat(129), "has space", "semi;colon", "slash/es", 'quote"d', "é"];
    for (const id of invalid) {
      const answer = await send(server.baseUrl, "GET", "/api/leads/sources", {
        headers: { ...auth(), "x-request-id": id },
      });
      expect(answer.headers["x-request-id"], id).toMatch(UUID);
    }
    // An empty header is no id either.
    expect(
      (await send(server.baseUrl, "GET", "/api/health/live", { headers: { "x-request-id": "" } })).headers[
        "x-request-id"
      ],
    ).toMatch(UUID);
  });

  it("replace an id holding either key in any form, in the echo, the body and the log", async () => {
    const holding = [
      TEST_KEY,
      `key:${TEST_KEY}`,
      `${TEST_KEY}.`,
      `req-${TEST_KEY}-42`,
      TEST_KEY.toUpperCase(),
      TEST_KEY.replace(/-/g, ":"),
      TEST_KEY.slice(4, 24),
      PREVIOUS_KEY,
      `trace.${PREVIOUS_KEY.replace(/-/g, "_")}.1`,
    ];
    for (const id of holding) {
      const answer = await send(server.baseUrl, "GET", "/api/nowhere", { headers: { "x-request-id": id } });
      expect(answer.headers["x-request-id"], id).toMatch(UUID);
      expect(answer.body.requestId).toBe(answer.headers["x-request-id"]);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const id of holding) expect(server.output().includes(id), id).toBe(false);
    // A run of a key too short to stand for it is an id like any other.
    const kept = await send(server.baseUrl, "GET", "/api/nowhere", { headers: { "x-request-id": "test-key-0123" } });
    expect(kept.headers["x-request-id"]).toBe("test-key-0123");
  });
});
