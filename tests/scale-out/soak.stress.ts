import autocannon from "autocannon";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { authorised, distinctive, sendRaw, stackTraceLines } from "../helpers/hostile";
import { nextServerPid, rssKiB } from "../helpers/process-tree";
import { startServer, type RunningServer } from "../helpers/server";

/**
 * Soak: mixed load (POST, GET list, sources, agents) on one production server
 * for SOAK_MINUTES (default 3) at half the throughput it was measured to reach
 * (autocannon, 10 s, after a warm-up). No request may fail, and the next-server
 * process's memory (RSS, sampled every second from /proc) may not grow by more
 * than 10% from the first minute to the last.
 */
const SOAK_MINUTES = Number(process.env.SOAK_MINUTES ?? 3);
const WARMUP_SECONDS = 30;
const MEASURE_SECONDS = 10;
const CONNECTIONS = 16;
const SAMPLE_MS = 1_000;
const NO_FAILURES = { errors: 0, timeouts: 0, non2xx: 0 };

let db: TestDatabase;
let server: RunningServer;
const personal = new Set<string>();

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  server = await startServer(db.url);
  await db.sql.query(
    `INSERT INTO users (platform_id, name, access_levels) VALUES ('soak_agent', 'Soak Agent', '{sales}')`,
  );
  for (const path of ["/api/leads/sources", "/api/leads/agents", "/api/leads"]) {
    expect((await sendRaw(authorised("GET", path), server.baseUrl)).status).toBe(200);
  }
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await db?.sql.end();
});

const headers = { authorization: `Bearer ${TEST_KEY}` };
let posted = 0;

/** The mix each connection cycles through: a new lead, a page of the list, the sources, the agents. */
function mixedRequests(): autocannon.Request[] {
  const referrers = ["Facebook Ads", "google ads", "Soak Roadshow", "  SOAK   ROADSHOW "];
  return [
    {
      method: "POST",
      path: "/api/leads",
      headers: { ...headers, "content-type": "application/json" },
      setupRequest: (request) => {
        const i = posted++;
        const lead: Record<string, unknown> = {
          leadName: `Soak Lead ${i} Hamidah`,
          leadMobileNumber: `012-${String(i % 10_000).padStart(4, "0")} ${String(Math.floor(i / 10_000) % 10_000).padStart(4, "0")}`,
          leadAddress: `${i} Jalan Soak Rahsia`,
          referrer: referrers[i % referrers.length],
        };
        if (i % 3 === 0) lead.assignedAgentId = "soak_agent";
        if (i % 500 === 0) for (const value of [lead.leadName, lead.leadAddress] as string[]) personal.add(value);
        return { ...request, body: JSON.stringify(lead) };
      },
    },
    { method: "GET", path: "/api/leads?limit=20", headers },
    { method: "GET", path: "/api/leads/sources", headers },
    { method: "GET", path: "/api/leads/agents", headers },
  ];
}

interface Load {
  rps: number;
  total: number;
  failed: { errors: number; timeouts: number; non2xx: number };
  p99: number;
}

async function drive(seconds: number, overallRate?: number): Promise<Load> {
  const result = await autocannon({
    url: server.baseUrl,
    connections: CONNECTIONS,
    duration: seconds,
    requests: mixedRequests(),
    ...(overallRate ? { overallRate } : {}),
  });
  return {
    rps: result.requests.total / result.duration,
    total: result.requests.total,
    failed: { errors: result.errors, timeouts: result.timeouts, non2xx: result.non2xx },
    p99: result.latency.p99,
  };
}

describe("soak", () => {
  it(
    `serves mixed load at half its maximum for ${SOAK_MINUTES} min without errors or memory growth`,
    async () => {
      const pid = nextServerPid(server.baseUrl);
      // Warm up first (JIT, connection pool, caches), so that the first minute measures a running server, not its
      // start.
      const warmup = await drive(WARMUP_SECONDS);
      const max = await drive(MEASURE_SECONDS);
      expect({ warmup: warmup.failed, max: max.failed }).toEqual({ warmup: NO_FAILURES, max: NO_FAILURES });
      const target = Math.max(1, Math.floor(max.rps / 2));

      const samples: { t: number; kib: number }[] = [];
      const started = Date.now();
      const sample = () => {
        const kib = rssKiB(pid);
        if (kib !== null) samples.push({ t: Date.now() - started, kib });
      };
      sample();
      const timer = setInterval(sample, SAMPLE_MS);
      let soak: Load;
      try {
        soak = await drive(SOAK_MINUTES * 60, target);
      } finally {
        clearInterval(timer);
      }
      sample();

      // Per minute: the peak RSS (what the server held; the garbage collector's sawtooth of ~100 MiB
      // over one to three minutes makes a minute's mean depend on where in a cycle it falls) and the mean.
      const minutes = Array.from({ length: SOAK_MINUTES }, (_, m) => {
        const kib = samples.filter((s) => s.t >= m * 60_000 && s.t <= (m + 1) * 60_000).map((s) => s.kib);
        return { peak: Math.max(...kib), mean: kib.reduce((a, b) => a + b, 0) / kib.length };
      });
      const first = minutes[0];
      const last = minutes[minutes.length - 1];
      const errors = soak.failed.errors + soak.failed.timeouts + soak.failed.non2xx;
      const mib = (kib: number) => (kib / 1024).toFixed(1);
      console.log(
        `soak: max ${max.rps.toFixed(1)} rps (${MEASURE_SECONDS} s, ${CONNECTIONS} connections, after ${WARMUP_SECONDS} s warm-up), ` +
          `target ${target} rps, achieved ${soak.rps.toFixed(1)} rps over ${SOAK_MINUTES} min (${soak.total} requests, ` +
          `${posted} leads posted in all, p99 ${soak.p99} ms), errors ${errors} (${JSON.stringify(soak.failed)}); ` +
          `next-server pid ${pid} RSS first minute peak ${mib(first.peak)} MiB (mean ${mib(first.mean)}), ` +
          `last minute peak ${mib(last.peak)} MiB (mean ${mib(last.mean)}): ${(((last.peak - first.peak) / first.peak) * 100).toFixed(1)}%; ` +
          `per minute peak/mean MiB: ${minutes.map((m) => `${mib(m.peak)}/${mib(m.mean)}`).join(", ")}`,
      );
      if (errors || rssKiB(pid) === null) console.log(`server output (tail):\n${server.output().slice(-4000)}`);

      expect(soak.failed).toEqual(NO_FAILURES);
      expect(rssKiB(pid), "the next-server process is still running").not.toBeNull();
      // The load really was applied: the paced rate was reached (give or take the pacing's granularity).
      expect(soak.rps).toBeGreaterThanOrEqual(target * 0.8);
      expect(last.peak).toBeLessThanOrEqual(first.peak * 1.1);
    },
    (SOAK_MINUTES * 60 + WARMUP_SECONDS + MEASURE_SECONDS + 120) * 1000,
  );

  it("kept the key, personal data and stack traces out of its output", () => {
    const output = server.output();
    expect(output).not.toContain(TEST_KEY);
    expect(distinctive(personal).filter((value) => output.includes(value))).toEqual([]);
    expect(stackTraceLines(output)).toEqual([]);
  });
});
