import { describe, expect, it } from "vitest";
import { TEST_KEY } from "../helpers/api";
import { distinctive, stackTraceLines } from "../helpers/hostile";
import { startServer } from "../helpers/server";
import {
  PREVIOUS_KEY,
  ACCESS_FIELDS,
  db,
  server,
  narrow,
  personal,
  send,
  auth,
  jsonBody,
  lead,
  accessLines,
  setUpOperationsServers,
} from "../helpers/operations-servers";

setUpOperationsServers();

describe("access log", () => {
  it("has one line per request with exactly the documented fields, which key matched, and no key in its path", async () => {
    const requests: [string, string, Record<string, string>, string | undefined, Record<string, unknown>][] = [
      [
        "GET",
        `/api/leads?referrer=Operations%20Fair&limit=1&key=${TEST_KEY}`,
        auth(),
        undefined,
        { status: 400, code: "INVALID_INPUT", key: "current", path: "/api/leads" },
      ],
      [
        "GET",
        "/api/leads?referrer=Operations%20Fair&limit=1",
        auth(PREVIOUS_KEY),
        undefined,
        { status: 200, key: "previous", path: "/api/leads" },
      ],
      ["POST", "/api/leads", jsonBody(PREVIOUS_KEY), lead(), { status: 201, key: "previous", path: "/api/leads" }],
      ["POST", "/api/leads", jsonBody(), lead(), { status: 201, key: "current", path: "/api/leads" }],
      [
        "GET",
        "/api/leads/sources",
        auth("wrong-key"),
        undefined,
        { status: 401, code: "UNAUTHORIZED", path: "/api/leads/sources" },
      ],
      ["GET", "/api/health/ready?probe=1", {}, undefined, { status: 200, path: "/api/health/ready" }],
      ["PUT", "/api/agents", {}, undefined, { status: 405, code: "METHOD_NOT_ALLOWED", path: "/api/agents" }],
      // A key pasted into the path, as sent or percent-encoded, current or previous: its segment is redacted.
      [
        "GET",
        `/api/leads/${TEST_KEY}`,
        {},
        undefined,
        { status: 404, code: "NOT_FOUND", path: "/api/leads/[redacted]" },
      ],
      [
        "GET",
        `/api/leads/${TEST_KEY.slice(0, 3)}%${TEST_KEY.charCodeAt(3).toString(16)}${TEST_KEY.slice(4)}`,
        {},
        undefined,
        { status: 404, code: "NOT_FOUND", path: "/api/leads/[redacted]" },
      ],
      [
        "GET",
        `/api/x${PREVIOUS_KEY}/leads`,
        {},
        undefined,
        { status: 404, code: "NOT_FOUND", path: "/api/[redacted]/leads" },
      ],
    ];
    let i = 0;
    for (const [method, path, headers, body, expected] of requests) {
      const requestId = `access-log-${++i}`;
      await send(server.baseUrl, method, path, { headers: { ...headers, "x-request-id": requestId }, body });
      // Written at the end of the event-loop turn that answered (lib/api/log.ts); allow the pipe a moment.
      let lines = accessLines(server.output(), requestId);
      for (let wait = 0; lines.length === 0 && wait < 20; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        lines = accessLines(server.output(), requestId);
      }
      expect(lines, `${method} ${path}`).toHaveLength(1);
      const [line] = lines;
      expect(line).toMatchObject({ level: "info", msg: "request", requestId, method, ...expected });
      expect(
        Object.keys(line).every((field) => ACCESS_FIELDS.includes(field)),
        JSON.stringify(line),
      ).toBe(true);
      expect(new Date(line.time as string).toISOString()).toBe(line.time);
      expect(line.durationMs).toBeTypeOf("number");
      if (!("code" in expected)) expect(line).not.toHaveProperty("code");
      if (!("key" in expected)) expect(line).not.toHaveProperty("key");
    }
  });

  it("keeps a line for every answered request of a burst when the server is stopped right after it", async () => {
    // Lines are written once per event-loop turn: none may be lost between the last answer and the exit.
    const own = await startServer(db.url);
    try {
      const ids = Array.from({ length: 40 }, (_, n) => `burst-${n}`);
      const answers = await Promise.all(
        ids.map((requestId) =>
          send(own.baseUrl, "GET", "/api/health/live", { headers: { "x-request-id": requestId } }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(ids.map(() => 200));
    } finally {
      await own.stop();
    }
    const output = own.output();
    expect(Array.from({ length: 40 }, (_, n) => accessLines(output, `burst-${n}`).length)).toEqual(Array(40).fill(1));
  }, 60_000);

  it("is off with LEADS_ACCESS_LOG=off", async () => {
    await send(narrow.baseUrl, "GET", "/api/leads/sources", { headers: { ...auth(), "x-request-id": "quiet-1" } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(narrow.output()).not.toContain("quiet-1");
  });
});

describe("output", () => {
  it("kept keys, personal data and stack traces out", () => {
    for (const output of [server.output(), narrow.output()]) {
      expect(output).not.toContain(TEST_KEY);
      expect(output).not.toContain(PREVIOUS_KEY);
      expect(distinctive(personal).filter((value) => output.includes(value))).toEqual([]);
      expect(stackTraceLines(output)).toEqual([]);
    }
  });
});
