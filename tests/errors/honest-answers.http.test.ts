import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERRORS } from "@/lib/api/errors";
import { freePort } from "@/scripts/process-group";
import { call, TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { assertContract } from "../helpers/openapi";
import { sendBytes } from "../helpers/raw-http";
import { startServer, type RunningServer } from "../helpers/server";

/**
 * What the production server tells clients and its operator when a request is not what it seems, over HTTP: a
 * request id that is a configured key is replaced; a client that closes mid-body is 499 `client-closed` in the log
 * and the metrics, not a 500; malformed HTTP gets the module's JSON 400; every response is `nosniff`.
 */
const PREVIOUS_KEY = "previous-key-honest-0123456789-0123456789";
let db: TestDatabase;
let server: RunningServer;
let metricsUrl: string;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  server = await startServer(db.url, { LEADS_API_KEY_PREVIOUS: PREVIOUS_KEY, LEADS_METRICS_PORT: String(metricsPort) });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await db?.sql.end();
});

const DOCUMENTED = [
  ["POST", "/api/leads"],
  ["GET", "/api/leads"],
  ["GET", "/api/leads/sources"],
  ["GET", "/api/leads/agents"],
  ["GET", "/api/health/live"],
  ["GET", "/api/health/ready"],
] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The access log lines (msg "request") of the server so far. */
const accessLines = () =>
  server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{") && line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

async function waitFor<T>(read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  for (const deadline = Date.now() + 5_000; ;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a request id that is a configured key", () => {
  it("is replaced by a new id, never echoed or logged, for the current and the previous key", async () => {
    for (const key of [TEST_KEY, PREVIOUS_KEY]) {
      const res = await call("GET", "/api/leads/nope", { baseUrl: server.baseUrl, headers: { "X-Request-Id": key } });
      expect(res.status).toBe(404);
      const id = res.headers.get("x-request-id");
      expect(id).toMatch(UUID);
      expect(res.body.requestId).toBe(id);
      expect(res.text).not.toContain(key);
      await waitFor(accessLines, (lines) => lines.some((line) => line.requestId === id));
    }
    expect(server.output()).not.toContain(TEST_KEY);
    expect(server.output()).not.toContain(PREVIOUS_KEY);
    // Any other valid id is kept, one as long as a key included.
    const own = "a".repeat(TEST_KEY.length);
    const kept = await call("GET", "/api/leads/nope", { baseUrl: server.baseUrl, headers: { "X-Request-Id": own } });
    expect(kept.headers.get("x-request-id")).toBe(own);
  });
});

describe("a client that closes mid-body", () => {
  it("is logged and counted as 499 client-closed, not as a server failure", async () => {
    const head = [
      "POST /api/leads HTTP/1.1",
      "Host: localhost",
      `Authorization: Bearer ${TEST_KEY}`,
      "Content-Type: application/json",
      "X-Request-Id: half-a-body",
      "Content-Length: 100",
      "",
      '{"leadName":',
    ].join("\r\n");
    expect(await sendBytes(new URL(server.baseUrl), head, 300)).toBe("");
    const lines = await waitFor(accessLines, (all) => all.some((line) => line.requestId === "half-a-body"));
    expect(lines.filter((line) => line.requestId === "half-a-body")).toEqual([
      expect.objectContaining({ method: "POST", path: "/api/leads", status: 499, code: "client-closed" }),
    ]);
    expect(server.output()).not.toContain('"msg":"request failed"');
    const metrics = await (await fetch(metricsUrl)).text();
    expect(metrics).toMatch(
      /^http_server_request_duration_seconds_count\{[^}]*http_response_status_code="499",error_type="client-closed"[^}]*\} 1$/m,
    );
    expect(metrics).not.toMatch(/http_response_status_code="5\d\d"/);
  });
});

describe("malformed HTTP", () => {
  const malformed = {
    "an unknown method token": "M12345 /api/leads HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "Content-Length with Transfer-Encoding":
      "POST /api/leads HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "two Content-Length headers":
      "POST /api/leads HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
  };

  for (const [what, bytes] of Object.entries(malformed)) {
    it(`answers ${what} with the module's JSON 400 MALFORMED_REQUEST and a request id, then closes`, async () => {
      const raw = await sendBytes(new URL(server.baseUrl), bytes);
      const [head, text] = raw.split("\r\n\r\n");
      const [statusLine, ...headerLines] = head.split("\r\n");
      expect(statusLine).toBe("HTTP/1.1 400 Bad Request");
      const headers = new Headers(headerLines.map((line) => line.split(": ", 2) as [string, string]));
      const body = JSON.parse(text);
      expect(body).toEqual({
        error: ERRORS.MALFORMED_REQUEST.message,
        code: "MALFORMED_REQUEST",
        requestId: expect.stringMatching(UUID),
      });
      expect(headers.get("x-request-id")).toBe(body.requestId);
      expect(headers.get("connection")).toBe("close");
      expect(headers.get("x-content-type-options")).toBe("nosniff");
      // The document allows this answer on every operation: it does not depend on the path.
      for (const [method, path] of DOCUMENTED) assertContract(method, path, { status: 400, headers, body });
      const lines = await waitFor(accessLines, (all) => all.some((line) => line.requestId === body.requestId));
      expect(lines.filter((line) => line.requestId === body.requestId)).toEqual([
        {
          time: expect.any(String),
          level: "info",
          msg: "request",
          requestId: body.requestId,
          status: 400,
          code: "MALFORMED_REQUEST",
        },
      ]);
    });
  }
});

describe("nosniff", () => {
  it("is on every response the module serves: pages, the HTML 404, the API, the documentation", async () => {
    const paths = [
      "/",
      "/no-such-page",
      "/api/leads/sources",
      "/api/nope",
      "/api/health/live",
      "/docs",
      "/openapi.json",
    ];
    for (const path of paths) {
      const res = await fetch(new URL(path, server.baseUrl), { headers: { authorization: `Bearer ${TEST_KEY}` } });
      await res.arrayBuffer();
      expect({ path, nosniff: res.headers.get("x-content-type-options") }).toEqual({ path, nosniff: "nosniff" });
    }
    const page = await fetch(new URL("/no-such-page", server.baseUrl));
    expect({ status: page.status, type: page.headers.get("content-type") }).toEqual({
      status: 404,
      type: expect.stringContaining("text/html"),
    });
  });
});
