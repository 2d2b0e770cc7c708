import { connect, createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readMigrations } from "@/lib/db/migrate";
import { readConfiguredSources } from "@/lib/leads/sources/configured";
import { unusableKeyProblem } from "@/lib/api/api-key.mjs";
import { settingsProblem, untilConfigured } from "@/lib/settings.mjs";
import { startLoadBalancer, type LoadBalancer } from "@/scripts/pooler";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";
import { call, TEST_KEY } from "../helpers/api";
import { sourceCount, type TestDatabase } from "../helpers/db";
import { createEmptyDatabase } from "../helpers/host-install";
import { sendOnOwnSocket } from "../helpers/raw-http";
import { validLead } from "../helpers/lead";

/**
 * A host that runs plain `next start` itself, without the launcher (and so without
 * scripts/prepare-db.ts) and without the preload (lib/preload/next-server-preload.mjs),
 * as on a platform that takes no `node --import`: instrumentation.ts starts applying the
 * migrations and creating the configured sources at start, and data requests wait for it;
 * what the preload would bound, the reverse proxy bounds (docs/host-guide.md, "Deployment shapes").
 */
const NEXT = fileURLToPath(import.meta.resolve("next/dist/bin/next"));
let db: TestDatabase;
let server: ProcessGroup;
let baseUrl: string;

beforeAll(async () => {
  db = await createEmptyDatabase();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  server = await startProcessGroup(
    process.execPath,
    [NEXT, "start", "-p", String(port)],
    { DATABASE_URL: db.url, LEADS_ACCESS_LOG: "on" },
    // Liveness touches neither the database nor the start-up work.
    `${baseUrl}/api/health/live`,
  );
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await db.sql.end();
});

describe("a host's own `next start` on an empty database", () => {
  it("applies every migration and creates the configured sources at start, before serving a data request", async () => {
    // Nothing but liveness has been asked: the work is done by the start, which liveness does not wait for.
    const names = (await readMigrations()).map((m) => m.name);
    const applied = async () =>
      (
        await db.sql.query<{ migration_name: string }>(
          `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY migration_name`,
        )
      ).rows.map((r) => r.migration_name);
    // Before the service's first start the table may not exist yet.
    const sources = () => sourceCount(db.sql).catch(() => 0);
    const done = async () =>
      (await applied().catch(() => [])).length === names.length && (await sources()) >= readConfiguredSources().length;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && !(await done());) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await applied()).toEqual(names);
    expect(await sources()).toBe(readConfiguredSources().length);
    const res = await call("GET", "/api/leads/sources", { baseUrl });
    expect(res.body.sources.map((s: { name: string }) => s.name).sort()).toEqual(
      readConfiguredSources()
        .map((s) => s.name)
        .sort(),
    );
    expect((await call("GET", "/api/health/ready", { baseUrl, key: null })).status).toBe(200);
  });
});

describe("a host's own `next start` with a key missing or under the minimum length, or a setting it cannot read", () => {
  const given: [string, Record<string, string | undefined>][] = [
    ["too short", { LEADS_API_KEY: "host-key-too-short" }],
    ["missing", { LEADS_API_KEY: undefined }],
    ["a pool size that is no number", { DATABASE_POOL_SIZE: "abc" }],
    ["a rate limit that cannot be read", { LEADS_RATE_LIMIT_CREATE: "lots" }],
    ["a metrics port that is no port", { LEADS_METRICS_PORT: "http" }],
  ];
  // Each case with the variable its one line names, and that line's sentence.
  const cases = given.map(([name, env]) => {
    const settings = settingsProblem(env);
    const sentence = unusableKeyProblem({ LEADS_API_KEY: TEST_KEY, ...env }) ?? (settings && untilConfigured(settings));
    return [name, env, Object.keys(env)[0], sentence] as const;
  });
  for (const [name, env, variable, sentence] of cases) {
    it(`serves its own pages, answers 503 API_NOT_CONFIGURED to data operations and readiness 503, says so once at start: ${name}`, async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const host = await startProcessGroup(
        process.execPath,
        [NEXT, "start", "-p", String(port)],
        { DATABASE_URL: db.url, ...env },
        `${url}/`,
      );
      try {
        expect((await fetch(`${url}/`)).status).toBe(200);
        // Spec order of checks: the key configured (503) before the bearer key (401), so a wrong key gets 503 too.
        for (const [path, key] of [
          ["/api/leads/sources", TEST_KEY],
          ["/api/leads", TEST_KEY],
          ["/api/leads", "wrong-key-0123456789-0123456789-01234567"],
        ]) {
          const res = await call("GET", path, { baseUrl: url, key });
          expect({ path, status: res.status, code: res.body.code }).toEqual({
            path,
            status: 503,
            code: "API_NOT_CONFIGURED",
          });
        }
        const created = await call("POST", "/api/leads", {
          baseUrl: url,
          body: validLead({ leadName: "Not Stored", referrer: "Nowhere Ads" }),
        });
        expect(created.status).toBe(503);
        expect((await call("GET", "/api/health/live", { baseUrl: url, key: null })).status).toBe(200);
        // Not ready while the data operations refuse: load balancers send it no traffic.
        const ready = await call("GET", "/api/health/ready", { baseUrl: url, key: null });
        expect({ status: ready.status, body: ready.body }).toEqual({
          status: 503,
          body: { status: "unavailable", reason: "not-configured" },
        });
        expect(sentence).toBeDefined();
        const lines = host
          .output()
          .split("\n")
          .filter((line) => line.includes(variable));
        expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
          { time: expect.any(String), level: "error", msg: sentence },
        ]);
        if (env.LEADS_API_KEY) expect(host.output()).not.toContain(env.LEADS_API_KEY);
        expect(host.output()).not.toMatch(/^\s+at /m); // no stack trace
      } finally {
        await host.stop();
      }
    }, 90_000);
  }
});

describe("a host's own `next start` whose tracing cannot start and whose metrics port is taken", () => {
  it("serves the data operations without them and says why in one line each", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const env = {
      DATABASE_URL: db.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      OTEL_PROPAGATORS: "b3",
      LEADS_METRICS_PORT: String((taken.address() as AddressInfo).port),
    };
    const host = await startProcessGroup(process.execPath, [NEXT, "start", "-p", String(port)], env, `${url}/`);
    try {
      expect((await call("GET", "/api/leads/sources", { baseUrl: url })).status).toBe(200);
      const lines = host
        .output()
        .split("\n")
        .filter((line) => / not (started|served)/.test(line))
        .map((line) => JSON.parse(line) as { msg: string })
        .sort((a, b) => a.msg.localeCompare(b.msg));
      expect(lines).toEqual([
        {
          time: expect.any(String),
          level: "error",
          msg: expect.stringMatching(/^metrics not served: listen EADDRINUSE/),
        },
        { time: expect.any(String), level: "error", msg: expect.stringMatching(/^tracing not started: /) },
      ]);
    } finally {
      await host.stop();
      taken.close();
    }
  }, 90_000);
});

describe("a host's own `next start` without the preload", () => {
  let proxy: LoadBalancer;
  /** Short here so that the test waits little; scripts/pooler.ts uses the preload's 30 s by default. */
  const PROXY_REQUEST_TIMEOUT_MS = 2_000;
  beforeAll(async () => {
    proxy = await startLoadBalancer([baseUrl], { httpRequestTimeoutMs: PROXY_REQUEST_TIMEOUT_MS });
  });
  afterAll(async () => {
    await proxy?.stop();
  });

  it("answers a method Next refuses before any route with Next's own empty 400, not the service's JSON 405", async () => {
    const answer = await sendOnOwnSocket(new URL("/api/leads", baseUrl), "PROPFIND");
    expect({ status: answer.status, text: answer.text }).toEqual({ status: 400, text: "" });
  });

  it("leaves a slow request to the proxy: HAProxy's timeout http-request answers 408 for a body that stops coming", async () => {
    const { hostname, port } = new URL(proxy.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) }, () => {
        // Headers announce 100 bytes of body; 10 are sent, then nothing.
        socket.write(
          'POST /api/leads HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"leadName"',
        );
      });
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (text += chunk));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Time-out");
  }, 20_000);
});
