import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "@/lib/api/errors";
import { POOL_WAIT_MS, STATEMENT_TIMEOUT_MS } from "@/lib/db/connect";
import { READ_WAIT_MS } from "@/lib/db/read-budget";
import { call, TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { withKeys } from "../helpers/key";
import { distinctive, stackTraceLines } from "../helpers/hostile";
import { sendOnOwnSocket, type RawAnswer } from "../helpers/raw-http";
import { startServer, type RunningServer } from "../helpers/server";
import { validLead } from "../helpers/lead";

/**
 * Operating the service (docs/operating.md), over HTTP against the production server:
 * request ids on every answer, the access log read from the server's output, key
 * rotation, closed connections after 401 and 413, and pool-wait failures logged
 * with their kind.
 */
const PREVIOUS_KEY = "previous-key-9876543210-9876543210-98765";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ACCESS_FIELDS = ["time", "level", "msg", "requestId", "method", "path", "status", "code", "durationMs", "key"];

let db: TestDatabase;
let server: RunningServer;
/** One pooled connection and no access log: for pool waits. */
let narrow: RunningServer;
const personal = new Set<string>();

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  [server, narrow] = await Promise.all([
    startServer(db.url, { LEADS_API_KEY_PREVIOUS: PREVIOUS_KEY }),
    startServer(db.url, { DATABASE_POOL_SIZE: "1", LEADS_ACCESS_LOG: "off" }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([server?.stop(), narrow?.stop()]);
  await db.sql.end();
});

interface Answer extends Omit<RawAnswer, "text"> {
  body: any;
}

/** One request on its own socket, with the raw response headers (fetch hides Connection) and the body parsed. */
async function send(
  baseUrl: string,
  method: string,
  path: string,
  { headers = {}, body }: { headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const { text, ...answer } = await sendOnOwnSocket(new URL(path, baseUrl), method, headers, body);
  return { ...answer, body: text ? JSON.parse(text) : undefined };
}

const auth = (key = TEST_KEY) => ({ authorization: `Bearer ${key}` });
const jsonBody = (key = TEST_KEY) => ({ ...auth(key), "content-type": "application/json" });

let counter = 0;
function lead(): string {
  counter++;
  const value = validLead({
    leadName: `Operable Lead ${counter} Wirawati`,
    leadMobileNumber: `013-555 ${String(1000 + counter)}`,
    referrer: "Operations Fair",
  });
  personal.add(value.leadName);
  return JSON.stringify(value);
}

/** The access log lines the server printed for a request id. */
function accessLines(output: string, requestId: string): Record<string, unknown>[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{") && line.includes(`"requestId":"${requestId}"`))
    .map((line) => JSON.parse(line))
    .filter((line) => line.msg === "request");
}

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
});

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

describe("connections after refusals", () => {
  it("are closed after 401 and 413 and kept alive otherwise", async () => {
    const unauthorised = await send(server.baseUrl, "GET", "/api/leads/sources");
    expect({ status: unauthorised.status, connection: unauthorised.headers.connection }).toEqual({
      status: 401,
      connection: "close",
    });
    const tooLarge = await send(server.baseUrl, "POST", "/api/leads", {
      headers: { ...jsonBody(), "content-length": String(MAX_BODY_BYTES + 1) },
      body: "{}",
    });
    expect({ status: tooLarge.status, connection: tooLarge.headers.connection }).toEqual({
      status: 413,
      connection: "close",
    });
    const invalid = await send(server.baseUrl, "GET", "/api/leads?limit=0", {
      headers: { ...auth(), connection: "keep-alive" },
    });
    expect({ status: invalid.status, connection: invalid.headers.connection }).toEqual({
      status: 400,
      connection: "keep-alive",
    });
  });
});

describe("pool waits", () => {
  it("fail a write after the pool's wait (logged with its kind and request id) and a read after the read connections' wait", async () => {
    const host = new pg.Client({ connectionString: db.url });
    await host.connect();
    try {
      // The host locks referrals: the listing holds the narrow server's only connection, and its one read connection.
      await host.query("BEGIN; LOCK TABLE referrals IN ACCESS EXCLUSIVE MODE");
      const listing = send(narrow.baseUrl, "GET", "/api/leads", {
        headers: { ...auth(), "x-request-id": "holds-the-pool" },
      });
      const waiting = async () =>
        (
          await db.sql.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
          )
        ).rows[0].n;
      while ((await waiting()) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      const started = Date.now();
      const timed = async (answer: Promise<Answer>) => ({ answer: await answer, waited: Date.now() - started });
      const [write, read] = await Promise.all([
        timed(
          send(narrow.baseUrl, "POST", "/api/leads", {
            headers: { ...jsonBody(), "x-request-id": "waits-write" },
            body: lead(),
          }),
        ),
        timed(
          send(narrow.baseUrl, "GET", "/api/leads/sources", { headers: { ...auth(), "x-request-id": "waits-read" } }),
        ),
      ]);
      expect([write.answer.status, write.answer.body.code]).toEqual([500, "INTERNAL_ERROR"]);
      expect(write.waited).toBeGreaterThanOrEqual(POOL_WAIT_MS - 100);
      expect(write.waited).toBeLessThan(POOL_WAIT_MS + 3_000);
      expect([read.answer.status, read.answer.body.code, read.answer.headers["retry-after"]]).toEqual([
        503,
        "READS_BUSY",
        "1",
      ]);
      expect(read.waited).toBeGreaterThanOrEqual(READ_WAIT_MS - 100);
      expect(read.waited).toBeLessThan(READ_WAIT_MS + 3_000);
      await host.query("ROLLBACK");
      expect((await listing).status).toBe(200);
    } finally {
      await host.end();
    }
    const failures = narrow
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"request failed"'))
      .map((line) => JSON.parse(line));
    expect(failures.filter((f) => f.requestId === "waits-write")).toEqual([
      expect.objectContaining({ level: "error", requestId: "waits-write", kind: "pool-timeout" }),
    ]);
  }, 60_000);
});

describe("a host lock on referrals", () => {
  it("fails reads and writes alike at the statement timeout (reads used to fail after 5 s), logged as statement-timeout", async () => {
    const host = new pg.Client({ connectionString: db.url });
    await host.connect();
    let answers: Answer[];
    let waited: number;
    try {
      await host.query("BEGIN; LOCK TABLE referrals IN ACCESS EXCLUSIVE MODE");
      const started = Date.now();
      answers = await Promise.all([
        send(server.baseUrl, "GET", "/api/leads", { headers: { ...auth(), "x-request-id": "locked-read" } }),
        send(server.baseUrl, "POST", "/api/leads", {
          headers: { ...jsonBody(), "x-request-id": "locked-write" },
          body: lead(),
        }),
      ]);
      waited = Date.now() - started;
    } finally {
      await host.query("ROLLBACK");
      await host.end();
    }
    expect(answers.map((a) => a.status)).toEqual([500, 500]);
    expect(waited).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 100);
    const failures = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"request failed"'))
      .map((line) => JSON.parse(line));
    for (const requestId of ["locked-read", "locked-write"]) {
      expect(failures.filter((f) => f.requestId === requestId)).toEqual([
        expect.objectContaining({ requestId, kind: "statement-timeout", code: "57014" }),
      ]);
    }
  }, 60_000);
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
