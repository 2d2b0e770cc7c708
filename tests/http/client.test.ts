import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LeadsClient } from "@/lib/client";
import { freePort } from "@/scripts/process-group";
import { TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { type RunningServer, startServer } from "../helpers/server";

/**
 * The typed client against the production server, and against small stand-in
 * servers that misbehave in the ways the retry rules are about (a real server
 * cannot be made to answer 502 or to drop a connection on cue).
 */
let db: TestDatabase;
let server: RunningServer;
let client: LeadsClient;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  server = await startServer(db.url);
  client = new LeadsClient({ baseUrl: server.baseUrl, apiKey: TEST_KEY });
}, 120_000);

afterAll(async () => {
  await server.stop();
  await db.sql.end();
});

const body = (i: number) => ({ leadName: `Client Lead ${i}`, leadMobileNumber: `012-345 ${String(7000 + i)}`, referrer: "Client Test Source" });

/** A stand-in server: `handle` answers each request; counts every request that reached it. */
async function standIn(handle: (req: IncomingMessage, res: ServerResponse, n: number) => void) {
  const requests: string[] = [];
  const http: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    handle(req, res, requests.length);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    requests,
    client: (options: Partial<ConstructorParameters<typeof LeadsClient>[0]> = {}) =>
      new LeadsClient({ baseUrl, apiKey: TEST_KEY, retry: { baseDelayMs: 5, maxDelayMs: 20 }, ...options }),
    close: () => {
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
};

describe("typed client against the production server", () => {
  it("creates a lead, lists sources and agents, and reports a rejection with its code and issues", async () => {
    const created = await client.createLead(body(1));
    expect(created).toMatchObject({ outcome: "ok", status: 201, code: null, issues: [] });
    if (created.outcome !== "ok") throw new Error("not created");
    expect(created.data.lead).toMatchObject({ leadName: "Client Lead 1", leadMobileNumber: "60123457001", status: "Pending" });

    const sources = await client.listSources();
    expect(sources.outcome === "ok" && sources.data.sources.some((s) => s.name === "Client Test Source")).toBe(true);
    expect((await client.listAgents()).outcome).toBe("ok");

    const invalid = await client.createLead({ ...body(2), leadName: "x" });
    expect(invalid).toMatchObject({ outcome: "rejected", status: 400, code: "INVALID_INPUT" });
    expect(invalid.issues.map((i) => i.path)).toEqual(["leadName"]);

    const refused = await new LeadsClient({ baseUrl: server.baseUrl, apiKey: "wrong-key" }).listLeads();
    expect(refused).toMatchObject({ outcome: "rejected", status: 401, code: "UNAUTHORIZED" });
    const badQuery = await client.listLeads({ limit: 0 });
    expect(badQuery).toMatchObject({ outcome: "rejected", status: 400, code: "INVALID_INPUT" });
  });

  it("iterates over every page once per referralId while inserts shift the offsets", async () => {
    const referrer = "Client Paging Source";
    const created: number[] = [];
    for (let i = 0; i < 7; i++) {
      const outcome = await client.createLead({ ...body(10 + i), referrer });
      if (outcome.outcome !== "ok") throw new Error(`not created: ${outcome.error}`);
      created.push(outcome.data.lead.referralId);
    }
    const seen: number[] = [];
    for await (const lead of client.leads({ referrer, limit: 3 })) {
      seen.push(lead.referralId);
      // After the first lead, a newer one pushes every lead one place down: the next page
      // starts with the last lead of this one, which the iterator must not yield twice.
      if (seen.length === 1) expect((await client.createLead({ ...body(30), referrer })).outcome).toBe("ok");
    }
    expect(seen).toEqual([...created].reverse());
  });
});

describe("typed client retry rules", () => {
  it("sends a POST exactly once when the server drops the kept-alive connection after reading the body", async () => {
    const s = await standIn((req, res) => {
      if (req.method === "GET") return json(res, 200, { sources: [], ads: [] });
      req.resume();
      req.on("end", () => req.socket.destroy());
    });
    const c = s.client();
    expect((await c.listSources()).outcome).toBe("ok"); // the POST goes out on this kept-alive socket
    const outcome = await c.createLead(body(40));
    expect(outcome).toMatchObject({ outcome: "uncertain", reason: "connection", status: null });
    await new Promise((resolve) => setTimeout(resolve, 300)); // room for a hidden resend to arrive
    expect(s.requests).toEqual(["GET /api/leads/sources", "POST /api/leads"]);
    await s.close();
  });

  it("never resends a POST after a timeout or a 5xx, and carries the status, code and request id", async () => {
    const s = await standIn((req, res, n) => {
      req.resume();
      if (n === 1) return; // never answers
      json(res, 500, { error: "Internal error", code: "INTERNAL_ERROR" }, { "x-request-id": "req-500" });
    });
    const timedOut = await s.client({ timeoutMs: 200 }).createLead(body(41));
    expect(timedOut).toMatchObject({ outcome: "uncertain", reason: "timeout", status: null });
    const failed = await s.client().createLead(body(42));
    expect(failed).toEqual({
      outcome: "uncertain",
      reason: "server-error",
      status: 500,
      code: "INTERNAL_ERROR",
      error: "Internal error",
      issues: [],
      requestId: "req-500",
    });
    expect(s.requests).toEqual(["POST /api/leads", "POST /api/leads"]);
    await s.close();
  });

  it("reports a POST to a port nobody listens on as unsent", async () => {
    const c = new LeadsClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: TEST_KEY });
    expect(await c.createLead(body(43))).toMatchObject({ outcome: "unsent", status: null });
  });

  it("retries a GET on transient 5xx and dropped connections, then succeeds", async () => {
    const s = await standIn((req, res, n) => {
      if (n === 1) return json(res, 502, { error: "bad gateway" });
      if (n === 2) return req.socket.destroy();
      json(res, 200, { agents: [] }, { "x-request-id": "req-ok" });
    });
    expect(await s.client().listAgents()).toMatchObject({ outcome: "ok", status: 200, data: { agents: [] }, requestId: "req-ok" });
    expect(s.requests).toHaveLength(3);
    await s.close();
  });

  it("never retries 400, 401, 415, 422 or a 503 that needs the administrator", async () => {
    const answers: [number, string][] = [
      [400, "INVALID_INPUT"],
      [401, "UNAUTHORIZED"],
      [415, "INVALID_CONTENT_TYPE"],
      [422, "INVALID_AGENT"],
      [503, "API_NOT_CONFIGURED"],
      [503, "ASSIGNMENT_NOT_CONFIGURED"],
    ];
    for (const [status, code] of answers) {
      const issues = code === "INVALID_INPUT" ? [{ path: "limit", message: "Too small" }] : undefined;
      const s = await standIn((_req, res) => json(res, status, { error: "no", code, issues }));
      expect(await s.client().listLeads()).toMatchObject({ outcome: "rejected", status, code, issues: issues ?? [] });
      expect(await s.client().createLead(body(44))).toMatchObject({ outcome: "rejected", status, code });
      expect(s.requests).toHaveLength(2);
      await s.close();
    }
  });

  it("gives up a GET after its attempts, inside the total deadline", async () => {
    const s = await standIn((_req, res) => json(res, 500, { error: "Internal error", code: "INTERNAL_ERROR" }));
    expect(await s.client({ retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 } }).listSources()).toMatchObject({
      outcome: "failed",
      reason: "server-error",
      status: 500,
      code: "INTERNAL_ERROR",
      attempts: 4,
    });
    expect(s.requests).toHaveLength(4);

    const started = Date.now();
    const slow = s.client({ retry: { maxAttempts: 1000, baseDelayMs: 50, maxDelayMs: 50, deadlineMs: 400 } });
    expect((await slow.listSources()).outcome).toBe("failed");
    expect(Date.now() - started).toBeLessThan(1_500);
    await s.close();
  });
});
