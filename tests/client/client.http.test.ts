import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LeadsClient } from "@/lib/client/index";
import { freePort } from "@/scripts/process-group";
import { TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { type RunningServer, startServer } from "../helpers/server";
import { validLead } from "../helpers/lead";

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

const body = (i: number) =>
  validLead({
    leadName: `Client Lead ${i}`,
    leadMobileNumber: `012-345 ${String(7000 + i)}`,
    referrer: "Client Test Source",
  });

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
    expect(created.data.lead).toMatchObject({
      leadName: "Client Lead 1",
      leadMobileNumber: "60123457001",
      status: "Pending",
    });

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
    expect(await s.client().listAgents()).toMatchObject({
      outcome: "ok",
      status: 200,
      data: { agents: [] },
      requestId: "req-ok",
    });
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

/**
 * A server in front of the real one that adds `extra` to every 200 body it passes on (and, if given, changes it more).
 */
async function addingProxy(change: (body: Record<string, unknown>) => Record<string, unknown> = (b) => b) {
  return standIn(async (req, res) => {
    const upstream = await fetch(new URL(req.url!, server.baseUrl), {
      headers: { authorization: req.headers.authorization ?? "" },
    });
    const text = await upstream.text();
    if (upstream.status !== 200) return json(res, upstream.status, text ? JSON.parse(text) : {});
    json(res, 200, change({ ...JSON.parse(text), addedByANewerServer: { since: "1.2.0" } }));
  });
}

describe("typed client: tolerant reading, the sources' ETag, and Retry-After", () => {
  it("keeps fields a newer server adds to a 200, and still refuses a body that lacks a required one", async () => {
    await client.createLead(body(50));
    const adding = await addingProxy((b) => ({
      ...b,
      ...(Array.isArray(b.leads) ? { leads: b.leads.map((lead: object) => ({ ...lead, score: 7 })) } : {}),
    }));
    const c = adding.client();
    const sources = await c.listSources();
    expect(sources.outcome, sources.error ?? "").toBe("ok");
    expect(
      sources.outcome === "ok" && (sources.data as unknown as { addedByANewerServer: unknown }).addedByANewerServer,
    ).toEqual({ since: "1.2.0" });
    const page = await c.listLeads({ limit: 5 });
    expect(page.outcome, page.error ?? "").toBe("ok");
    expect(
      page.outcome === "ok" &&
        page.data.leads.length > 0 &&
        page.data.leads.every((lead) => (lead as { score?: number }).score === 7),
    ).toBe(true);
    expect((await c.listAgents()).outcome).toBe("ok");
    await adding.close();

    const dropping = await addingProxy((b) => ({
      ...b,
      leads: (b.leads as object[]).map(({ referralId: _, ...lead }: { referralId?: number }) => lead),
    }));
    const broken = await dropping.client({ retry: { maxAttempts: 1 } }).listLeads({ limit: 5 });
    expect(broken).toMatchObject({ outcome: "failed", reason: "bad-response", status: 200 });
    expect(broken.error).toMatch(
      /^GET \/api\/leads answered 200 with a body that is not a ListLeadsResponse \(body\.leads\.0\.referralId: missing\)$/,
    );
    await dropping.close();
  });

  it("asks for the sources list with the ETag it has and keeps that list on 304", async () => {
    const c = new LeadsClient({ baseUrl: server.baseUrl, apiKey: TEST_KEY });
    const first = await c.listSources();
    expect(first).toMatchObject({ outcome: "ok", status: 200 });
    const second = await c.listSources();
    expect(second).toMatchObject({ outcome: "ok", status: 304 });
    expect(second.outcome === "ok" && first.outcome === "ok" && second.data).toEqual(
      first.outcome === "ok" && first.data,
    );

    // A new source changes the list's version: the whole list again, with the new one in it.
    expect((await c.createLead({ ...body(51), referrer: "Client ETag Source" })).outcome).toBe("ok");
    const third = await c.listSources();
    expect(
      third.outcome === "ok" && third.status === 200 && third.data.sources.some((s) => s.name === "Client ETag Source"),
    ).toBe(true);

    const seen: (string | undefined)[] = [];
    const s = await standIn((req, res) => {
      seen.push(req.headers["if-none-match"] as string | undefined);
      if (req.headers["if-none-match"] === '"7"') return void res.writeHead(304, { etag: '"7"' }).end();
      json(res, 200, { sources: [{ id: "src_1", name: "One", type: "ads" }], ads: [] }, { etag: '"7"' });
    });
    const kept = s.client();
    await kept.listSources();
    expect(await kept.listSources()).toMatchObject({
      outcome: "ok",
      status: 304,
      data: { sources: [{ name: "One" }] },
    });
    expect(seen).toEqual([undefined, '"7"']);
    await s.close();
  });

  it("waits the server's Retry-After before retrying a GET (READS_BUSY) or a refused POST that asks for it (429)", async () => {
    const times: number[] = [];
    const s = await standIn((req, res, n) => {
      req.resume();
      times.push(Date.now());
      if (n === 1) return json(res, 503, { error: "busy", code: "READS_BUSY", requestId: "r" }, { "retry-after": "1" });
      if (n === 2) return json(res, 200, { agents: [] });
      if (n === 3)
        return json(res, 429, { error: "slow down", code: "RATE_LIMITED", requestId: "r" }, { "retry-after": "1" });
      json(res, 201, {
        lead: {
          referralId: 9,
          leadCustomerId: "c",
          leadName: "n",
          leadMobileNumber: "60123456789",
          referrer: { customerId: "s", name: "S", type: "source" },
          assignedAgentId: null,
          status: "Pending",
        },
      });
    });
    // The client's own backoff would be at most 20 ms: the second request comes after the server's second.
    const c = s.client();
    expect(await c.listAgents()).toMatchObject({ outcome: "ok", status: 200 });
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(950);
    expect(await c.createLead(body(52))).toMatchObject({ outcome: "ok", status: 201 });
    expect(times[3] - times[2]).toBeGreaterThanOrEqual(950);
    expect(s.requests).toEqual([
      "GET /api/leads/agents",
      "GET /api/leads/agents",
      "POST /api/leads",
      "POST /api/leads",
    ]);

    // A Retry-After beyond the call's deadline ends the call at once instead of waiting past it.
    const far = await standIn((_req, res) =>
      json(res, 503, { error: "busy", code: "READS_BUSY", requestId: "r" }, { "retry-after": "3600" }),
    );
    const started = Date.now();
    expect(await far.client().listAgents()).toMatchObject({
      outcome: "failed",
      reason: "server-error",
      code: "READS_BUSY",
      attempts: 1,
    });
    expect(Date.now() - started).toBeLessThan(1_000);
    await far.close();
    await s.close();
  });
  it("sends a POST refused 429 CREATION_BUSY again after Retry-After plus a backoff that grows per attempt", async () => {
    const times: number[] = [];
    const busy = { error: "busy", code: "CREATION_BUSY", requestId: "r" };
    const s = await standIn((req, res) => {
      req.resume();
      times.push(Date.now());
      json(res, 429, busy, { "retry-after": "0" });
    });
    const refused = await s.client({ retry: { baseDelayMs: 100, maxDelayMs: 1_000 } }).createLead(body(53));
    expect(refused).toMatchObject({ outcome: "rejected", status: 429, code: "CREATION_BUSY", retryAfterSeconds: 0 });
    expect(s.requests).toEqual(Array.from({ length: 5 }, () => "POST /api/leads"));
    // Full jitter below 100, 200, 400 and 800 ms (750 ms in all on average): never past the caps, and not all at once.
    const waits = times.slice(1).map((t, i) => t - times[i]);
    waits.forEach((wait, i) => expect(wait).toBeLessThan(100 * 2 ** i + 50));
    expect(waits.reduce((a, b) => a + b)).toBeGreaterThan(20);
    await s.close();
  });
});
