import { Agent, request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { creationConnections, LONGEST_RETRY_AFTER_S } from "@/lib/db/creation-budget";
import { REST_SHARE } from "@/lib/preload/creation-shed.mjs";
import { post, type ApiResponse } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { expectError } from "../helpers/expect-api";
import { TEST_KEY } from "../helpers/key";
import { validLead } from "../helpers/lead";
import { startServer, type RunningServer } from "../helpers/server";

/**
 * The production server refuses a POST in its preload, before Next, while lead creation's line is full, and leaves
 * that connection unread for its Retry-After (docs/decisions.md, "Creation sheds load"). The refusal is the route's
 * own: both are checked against the OpenAPI document and against each other.
 */
const POOL_SIZE = 4;
/** Creations that fill the creation connections and their line (four per connection). */
const HELD = creationConnections(POOL_SIZE) * 5;
/** Headers of the transport, not of the answer, and Next's own Vary (for its pages' caches). */
const TRANSPORT = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding", "vary"]);

let db: TestDatabase;
let server: RunningServer;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  server = await startServer(db.url, { DATABASE_POOL_SIZE: String(POOL_SIZE) });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await db?.sql.end();
}, 60_000);

/**
 * Runs `act` while creations are held on a lock of the audit table, the first HELD of them filling the creation
 * connections and their line; then releases them and gives their answers too.
 */
async function whileFull<T>(
  act: (held: Promise<ApiResponse>[]) => Promise<T>,
): Promise<{ result: T; answers: ApiResponse[] }> {
  const lock = await db.sql.connect();
  let held: Promise<ApiResponse>[] = [];
  let result: T;
  try {
    await lock.query("BEGIN; LOCK TABLE audit_entries IN ACCESS EXCLUSIVE MODE");
    held = Array.from({ length: HELD }, () => post(validLead({ leadName: "Held Lead" }), { baseUrl: server.baseUrl }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    result = await act(held);
  } finally {
    await lock.query("COMMIT");
    lock.release();
  }
  return { result, answers: await Promise.all(held) };
}

/** The answer's headers without the transport's, by name. */
function answerHeaders(res: ApiResponse): Record<string, string> {
  return Object.fromEntries([...res.headers].filter(([name]) => !TRANSPORT.has(name) && name !== "x-request-id"));
}

/** Sends `method path` on `agent`, resolving when its answer has ended, with whether it went on a reused socket. */
function onAgent(
  agent: Agent,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; reused: boolean; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" };
    const req = request(new URL(path, server.baseUrl), { method, agent, headers }, (res) => {
      res.resume();
      const retryAfter = res.headers["retry-after"];
      res.on("end", () =>
        resolve({ status: res.statusCode!, reused: req.reusedSocket, ...(retryAfter && { retryAfter }) }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe('429 CREATION_BUSY before Next (docs/decisions.md, "Creation sheds load")', () => {
  it("answers the preload's refusal with the route's status, headers and body", async () => {
    const { result: refused, answers } = await whileFull(async (held) => {
      const refusal = await post(validLead({ leadName: "Refused Lead" }), {
        baseUrl: server.baseUrl,
        headers: { "x-request-id": "busy-request-1" },
      });
      // A caller without the key is still answered by the route.
      const wrongKey = await post(validLead(), { baseUrl: server.baseUrl, key: "wrong-key-0123456789-0123456789-01" });
      expectError(wrongKey, 401, "UNAUTHORIZED");
      // The creations in line wait past their bound while the lock holds, and the route refuses them itself.
      await Promise.any(held);
      return refusal;
    });
    expectError(refused, 429, "CREATION_BUSY");
    expect(refused.headers.get("x-request-id")).toBe("busy-request-1");
    const inLine = answers.filter((answer) => answer.status !== 201);
    expect(inLine.length).toBeGreaterThan(0);
    for (const answer of inLine) {
      expectError(answer, 429, "CREATION_BUSY");
      expect(answerHeaders(answer)).toEqual(answerHeaders(refused));
      expect({ ...answer.body, requestId: "" }).toEqual({ ...refused.body, requestId: "" });
    }
    const { rows } = await db.sql.query(`SELECT 1 FROM referrals WHERE lead_name = 'Refused Lead'`);
    expect(rows).toEqual([]);
  });

  it("reads nothing more from the refused connection for its share of Retry-After, and reads it again within it", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const { result } = await whileFull(async () => {
        const refusal = await onAgent(agent, "POST", "/api/leads", JSON.stringify(validLead()));
        expect(refusal.status).toBe(429);
        const refusedAt = performance.now();
        const retryAfterMs = Number(refusal.retryAfter) * 1000;
        return { refusedAt, retryAfterMs, next: onAgent(agent, "GET", "/api/health/live") };
      });
      expect(await result.next).toEqual({ status: 200, reused: true });
      const answeredAfter = performance.now() - result.refusedAt;
      expect(result.retryAfterMs).toBeGreaterThanOrEqual(1000);
      expect(answeredAfter).toBeGreaterThanOrEqual(result.retryAfterMs * REST_SHARE - 100);
      // Read again within Retry-After: a caller that waits as told is not held by the rest.
      expect(answeredAfter).toBeLessThan(result.retryAfterMs);
    } finally {
      agent.destroy();
    }
  });

  it("keeps an idle connection open past the longest Retry-After, so a caller that waits as told finds it", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await onAgent(agent, "GET", "/api/health/live")).toEqual({ status: 200, reused: false });
      await new Promise((resolve) => setTimeout(resolve, LONGEST_RETRY_AFTER_S * 1000 + 500));
      expect(await onAgent(agent, "GET", "/api/health/live")).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  }, 30_000);
});
