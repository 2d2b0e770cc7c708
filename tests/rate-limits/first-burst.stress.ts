import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type ApiResponse } from "../helpers/api";
import { expectError } from "../helpers/expect-api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { startLatencyProxy, type LatencyProxy } from "../helpers/latency-proxy";
import { startServer, type RunningServer } from "../helpers/server";
import { validLead } from "../helpers/lead";

/**
 * A fresh server process under a creation limit, burst at right after readiness: its first claim of the key's budget
 * is slow (the database is reached through a proxy that adds 150 ms each way while the burst starts, so the claim
 * takes several round trips of 300 ms), and still at most the limit is created in the window, the rest refused 429
 * with nothing written. The window after admits the limit again: what the burst sent leaves no debt behind.
 */
const LIMIT = 20;
const BURST = 300;
const SLOW_MS = 150;
const SLOW_FOR_MS = 3_000;

let db: TestDatabase;
let proxy: LatencyProxy;
let server: RunningServer;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  proxy = await startLatencyProxy(db.url);
  server = await startServer(proxy.url, { LEADS_RATE_LIMIT_CREATE: `${LIMIT}/min`, LEADS_ACCESS_LOG: "off" });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await proxy?.stop();
  await db?.sql.end();
});

async function burst(round: string): Promise<ApiResponse[]> {
  return Promise.all(
    Array.from({ length: BURST }, (_, n) =>
      call("POST", "/api/leads", {
        baseUrl: server.baseUrl,
        body: validLead({ leadName: `Burst ${round} ${n}`, leadMobileNumber: `012-555 ${String(1000 + n)}` }),
      }),
    ),
  );
}

async function expectLimitHeld(round: string, answers: ApiResponse[]): Promise<number> {
  const created = answers.filter((res) => res.status === 201);
  const refused = answers.filter((res) => res.status !== 201);
  console.log(`first burst, ${round}: ${BURST} POSTs under ${LIMIT}/min, ${created.length} created`);
  expect(created.length).toBe(LIMIT);
  for (const res of refused) {
    expectError(res, 429, "RATE_LIMITED");
    expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  }
  const { rows } = await db.sql.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM referrals WHERE lead_name LIKE $1",
    [`Burst ${round} %`],
  );
  expect(rows[0].n).toBe(LIMIT);
  return Math.max(...refused.map((res) => Number(res.headers.get("retry-after"))));
}

describe(`a fresh process under a creation limit of ${LIMIT}/min, burst at with ${BURST} POSTs at once`, () => {
  it("creates at most the limit in the first window although its first claim is slow, and the limit again in the next", async () => {
    proxy.delayMs = SLOW_MS;
    const fast = setTimeout(() => (proxy.delayMs = 0), SLOW_FOR_MS);
    let retryAfter: number;
    try {
      retryAfter = await expectLimitHeld("first", await burst("first"));
    } finally {
      clearTimeout(fast);
      proxy.delayMs = 0;
    }
    await new Promise((resolve) => setTimeout(resolve, (retryAfter + 1) * 1000));
    await expectLimitHeld("next", await burst("next"));
    expect(server.output()).not.toContain("rate limit not counted");
  }, 180_000);
});
