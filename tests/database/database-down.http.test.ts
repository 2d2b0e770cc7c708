import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERRORS } from "@/lib/api/errors";
import { TEST_KEY } from "../helpers/api";
import {
  authorised,
  checkEnvelope,
  distinctive,
  OPERATIONS,
  sendRaw,
  stackTraceLines,
  type RawRequest,
} from "../helpers/hostile";
import { freePort, startProcessGroup } from "@/scripts/process-group";
import { OwnCluster } from "../helpers/own-cluster";
import { childrenOf, nextServerPid } from "../helpers/process-tree";
import { startServer, type RunningServer } from "../helpers/server";
import { validLead } from "../helpers/lead";

/**
 * A production server whose database goes away, shut down or frozen: it must
 * keep answering the documented JSON error quickly (never hang, never crash),
 * and serve again by itself once the database is back, without a restart. The
 * database here is a cluster of this test's own (the shared test cluster is
 * never stopped), kept on disk so that it comes back with its data.
 */
const BOUND_MS = 10_000;
/**
 * A frozen database never cancels a query itself: a request on a pooled connection
 * is bounded by the client-side query timeout (lib/db/prisma.ts: the 15 s statement
 * timeout plus 1 s); new connections by the 5 s connect timeout.
 */
const FROZEN_BOUND_MS = 20_000;

let cluster: OwnCluster;
let server: RunningServer;
const personal = new Set<string>();

/**
 * Liveness and readiness over HTTP: each answers within 2 s, JSON, no-store, with a
 * request id; readiness says unavailable while the database does not answer.
 */
async function expectHealth(live: number, ready: number, baseUrl = server.baseUrl): Promise<void> {
  for (const [p, status] of [
    ["/api/health/live", live],
    ["/api/health/ready", ready],
  ] as const) {
    const response = await sendRaw({ method: "GET", path: p, headers: [] }, baseUrl, 10_000);
    expect({ p, status: response.status, body: JSON.parse(response.text) }).toEqual({
      p,
      status,
      body: status === 200 ? { status: "ok" } : { status: "unavailable", reason: "database-not-ready" },
    });
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(response.ms).toBeLessThan(2_000);
  }
}

beforeAll(async () => {
  cluster = await OwnCluster.create("down_test");
  server = await startServer(cluster.url);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await cluster?.remove();
}, 60_000);

let counter = 0;
function leadRequest(): RawRequest {
  counter++;
  const lead = validLead({
    leadName: `Outage Lead ${counter} Zulkifli`,
    leadMobileNumber: `019-777 ${String(1000 + counter)}`,
    leadAddress: `${counter} Lorong Putus`,
    referrer: "Outage Roadshow",
  });
  for (const value of [lead.leadName, lead.leadAddress]) personal.add(value);
  return authorised("POST", "/api/leads", lead);
}

const requestFor = (method: string, p: string) => (method === "POST" ? leadRequest() : authorised(method, p));

async function referrals(): Promise<number> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    return (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM referrals")).rows[0].n;
  } finally {
    await client.end();
  }
}

describe("a production server whose database is stopped", () => {
  it("answers 500 INTERNAL_ERROR as JSON within 10 s on every operation, and recovers without a restart", async () => {
    for (const [method, p] of OPERATIONS)
      expect((await sendRaw(requestFor(method, p), server.baseUrl)).status).toBe(method === "POST" ? 201 : 200);
    const pid = nextServerPid(server.baseUrl);
    const before = await referrals();

    await cluster.stop();
    // One at a time on every operation and alias, twice (the pool's connections are dead, then none can be made) ...
    const timings: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (const [method, p] of OPERATIONS) {
        const response = await sendRaw(requestFor(method, p), server.baseUrl, 30_000);
        timings.push(response.ms);
        const body = checkEnvelope(response, { allow5xx: true });
        expect({ method, p, status: response.status, body }).toEqual({
          method,
          p,
          status: 500,
          body: { error: "The request could not be completed", code: "INTERNAL_ERROR", requestId: expect.any(String) },
        });
        expect(response.ms).toBeLessThan(BOUND_MS);
      }
    }
    // ... and many at once, more than the pool has connections.
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) => OPERATIONS[i % OPERATIONS.length]).map(([method, p]) =>
        sendRaw(requestFor(method, p), server.baseUrl, 30_000),
      ),
    );
    for (const response of burst) {
      expect(checkEnvelope(response, { allow5xx: true }).code).toBe("INTERNAL_ERROR");
      expect(response.ms).toBeLessThan(BOUND_MS);
    }
    console.log(`database down: slowest answer ${Math.max(...timings, ...burst.map((r) => r.ms))} ms`);
    await expectHealth(200, 503);

    await cluster.start();
    // Back by itself: the same server process answers normally again.
    const deadline = Date.now() + 30_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await sendRaw(authorised("GET", "/api/leads/sources"), server.baseUrl, 15_000)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(200);
    await expectHealth(200, 200);
    for (const [method, p] of OPERATIONS) {
      const response = await sendRaw(requestFor(method, p), server.baseUrl);
      checkEnvelope(response);
      expect({ method, p, status: response.status }).toEqual({ method, p, status: method === "POST" ? 201 : 200 });
    }
    expect(nextServerPid(server.baseUrl)).toBe(pid);
    // Only the POST made after recovery was saved; none of the refused ones.
    expect(await referrals()).toBe(before + 1);
  }, 180_000);

  it("answers 500 within 20 s while the database is frozen (accepts connections, never answers), then recovers", async () => {
    for (const [method, p] of OPERATIONS)
      expect((await sendRaw(requestFor(method, p), server.baseUrl)).status).toBe(method === "POST" ? 201 : 200);
    const before = await referrals();
    // SIGSTOP the whole cluster (postmaster and backends): TCP still connects, nothing answers.
    const postmaster = cluster.server!.pid;
    const frozen = [postmaster, ...childrenOf(postmaster)];
    for (const pid of frozen) signal(pid, "SIGSTOP");
    let responses: Awaited<ReturnType<typeof sendRaw>>[];
    try {
      await expectHealth(200, 503);
      responses = await Promise.all(
        [...OPERATIONS, ...OPERATIONS].map(([method, p]) => sendRaw(requestFor(method, p), server.baseUrl, 30_000)),
      );
    } finally {
      // Backends first: a backend that was exiting when frozen is reaped as soon as the postmaster runs again.
      for (const pid of frozen.toReversed()) signal(pid, "SIGCONT");
    }
    const requests = [...OPERATIONS, ...OPERATIONS];
    const failed = { error: ERRORS.INTERNAL_ERROR.message, code: "INTERNAL_ERROR", requestId: expect.any(String) };
    // Reads beyond the read connections (half of the pool: 6 reads here, 5 connections) wait 2 s for one, then are
    // refused READS_BUSY; writes never wait behind them.
    const busy = { error: ERRORS.READS_BUSY.message, code: "READS_BUSY", requestId: expect.any(String) };
    responses.forEach((response, i) => {
      const envelope = checkEnvelope(response, { allow5xx: true });
      if (requests[i][0] === "GET" && envelope.code === "READS_BUSY") expect(envelope).toEqual(busy);
      else expect(envelope).toEqual(failed);
      expect(response.ms).toBeLessThan(FROZEN_BOUND_MS);
    });
    console.log(`database frozen: slowest answer ${Math.max(...responses.map((r) => r.ms))} ms`);
    const deadline = Date.now() + 30_000;
    let status = 0;
    while (Date.now() < deadline && status !== 201) {
      status = (await sendRaw(leadRequest(), server.baseUrl, 15_000)).status;
      if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(201);
    for (const [method, p] of OPERATIONS)
      expect((await sendRaw(requestFor(method, p), server.baseUrl)).status).toBe(method === "POST" ? 201 : 200);
    // The refused POSTs left nothing, even after the frozen backends went on: only the two successes since were saved.
    expect(await referrals()).toBe(before + 2);
  }, 180_000);

  it("starts under its own `next start` while the database is down: live, not ready, and ready once the database is back", async () => {
    const databaseUrl = cluster.url;
    await cluster.stop();
    // A host's own `next start` (no launcher): the start-up work runs in instrumentation.ts.
    const webPort = await freePort();
    const baseUrl = `http://127.0.0.1:${webPort}`;
    const own = await startProcessGroup(
      process.execPath,
      [fileURLToPath(import.meta.resolve("next/dist/bin/next")), "start", "-p", String(webPort)],
      { DATABASE_URL: databaseUrl, LEADS_API_KEY: TEST_KEY, LEADS_ACCESS_LOG: "on" },
      `${baseUrl}/api/health/live`,
    );
    try {
      await expectHealth(200, 503, baseUrl);
      const refused = await sendRaw(leadRequest(), baseUrl, 30_000);
      expect(checkEnvelope(refused, { allow5xx: true }).code).toBe("INTERNAL_ERROR");
      expect(own.output()).toMatch(/"msg":"start-up preparation failed[^"]*","kind":"connection-refused"/);
      await cluster.start();
      const deadline = Date.now() + 30_000;
      let ready = 0;
      while (Date.now() < deadline && ready !== 200) {
        ready = (await sendRaw({ method: "GET", path: "/api/health/ready", headers: [] }, baseUrl, 10_000)).status;
        if (ready !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(ready).toBe(200);
      expect((await sendRaw(leadRequest(), baseUrl)).status).toBe(201);
      const output = own.output();
      expect(output).not.toContain(TEST_KEY);
      expect(distinctive(personal).filter((value) => output.includes(value))).toEqual([]);
      expect(stackTraceLines(output)).toEqual([]);
    } finally {
      await own.stop();
    }
  }, 180_000);

  it("kept the key, personal data and stack traces out of its output", () => {
    const output = server.output();
    expect(output).not.toContain(TEST_KEY);
    expect(distinctive(personal).filter((value) => output.includes(value))).toEqual([]);
    expect(stackTraceLines(output)).toEqual([]);
  });
});

/** Signals a process of the cluster; a backend that exited since it was listed is gone. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}
