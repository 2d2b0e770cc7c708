import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAIM_STATEMENT_TIMEOUT_MS } from "@/lib/api/rate-limit";
import { FEATURES, grantStatements } from "@/lib/db/grants";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";
import { call, TEST_KEY } from "../helpers/api";
import { adminQuery, createTestDatabase, type TestDatabase } from "../helpers/db";
import { startServer, type RunningServer } from "../helpers/server";
import { validLead } from "../helpers/lead";

/**
 * Rate limits under the least privilege the host guide documents, on the production server: a role with exactly the
 * guide's grants counts a limit; a role with only SELECT and INSERT (what the guide once said) is told at start, is
 * not ready, and its requests pass uncounted, counted in the metrics, until the grant is given. A limiter whose table
 * is held by ACCESS EXCLUSIVE adds CLAIM_STATEMENT_TIMEOUT_MS and a connection wait to a limited request, which passes,
 * counted.
 */
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
}, 60_000);

afterAll(async () => {
  await db?.sql.end();
});

/** A login role on the test database with the given grants (`{role}` stands for its name); its DATABASE_URL. */
async function roleWith(grants: (role: string) => string): Promise<{ role: string; url: string }> {
  const role = `lp_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE ROLE ${role} LOGIN PASSWORD 'least'`);
  await db.sql.query(grants(role));
  return { role, url: db.url.replace(/\/\/[^@]*@/, `//${role}:least@`) };
}

const lead = (n: number) =>
  validLead({
    leadName: `Least Privilege ${n}`,
    leadMobileNumber: `012-777 ${String(1000 + n)}`,
    referrer: "Least Privilege Expo",
  });

async function uncounted(metricsUrl: string, operation: "create" | "read"): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text
    .split("\n")
    .find(
      (l) =>
        l.startsWith("lead_intake_rate_limit_uncounted_total{") &&
        l.includes(`lead_intake_rate_limit_operation="${operation}"`),
    );
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

function linesWith(output: string, msg: string): Record<string, unknown>[] {
  return output
    .split("\n")
    .filter((l) => l.startsWith("{") && l.includes(`"msg":${JSON.stringify(msg).slice(0, -1)}`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("a role with exactly the documented grants", () => {
  let server: RunningServer;
  let metricsUrl: string;

  beforeAll(async () => {
    const { url } = await roleWith((role) => grantStatements(FEATURES, role));
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    // A read share is one request (1% of 150), so every limited read claims one.
    server = await startServer(url, {
      LEADS_RATE_LIMIT_CREATE: "3/min",
      LEADS_RATE_LIMIT_READ: "150/min",
      LEADS_METRICS_PORT: String(metricsPort),
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("creates and lists leads, and holds the creation limit: 8 POSTs under 3/min give 3 × 201 and 5 × 429", async () => {
    const statuses = [];
    for (let n = 0; n < 8; n++)
      statuses.push((await call("POST", "/api/leads", { baseUrl: server.baseUrl, body: lead(n) })).status);
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429, 429, 429]);
    for (const path of ["/api/leads/sources", "/api/leads/agents", "/api/leads?referrer=Least%20Privilege%20Expo"])
      expect((await call("GET", path, { baseUrl: server.baseUrl })).status, path).toBe(200);
    const { rows } = await db.sql.query(
      "SELECT count(*)::int AS n FROM referrals WHERE lead_name LIKE 'Least Privilege %'",
    );
    expect(rows[0].n).toBe(3);
    expect(server.output()).not.toContain("rate limit not counted");
    expect(server.output()).not.toContain("cannot be counted");
    expect(await uncounted(metricsUrl, "create")).toBe(0);
  });

  it("with the limiter's table locked, every limited request passes within CLAIM_STATEMENT_TIMEOUT_MS and a connection wait, counted", async () => {
    const timed = async () => {
      const started = performance.now();
      const res = await call("GET", "/api/leads/sources", { baseUrl: server.baseUrl });
      return { status: res.status, ms: performance.now() - started };
    };
    // One by one, then 20 at once (those wait on one claim, then are served together), each against its normal time.
    const measured = async () => {
      const oneByOne = [];
      for (let i = 0; i < 5; i++) oneByOne.push(await timed());
      return { oneByOne, together: await Promise.all(Array.from({ length: 20 }, timed)) };
    };
    const normal = await measured();
    const before = await uncounted(metricsUrl, "read");
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    let locked: typeof normal;
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE lead_rate_limit_counts IN ACCESS EXCLUSIVE MODE");
      locked = await measured();
    } finally {
      await locker.query("ROLLBACK");
      await locker.end();
    }
    for (const kind of ["oneByOne", "together"] as const) {
      expect([...normal[kind], ...locked[kind]].map((r) => r.status)).toEqual(Array(2 * normal[kind].length).fill(200));
      // The claim waits for a connection as the request's own statement does (at most a normal answer's time when 20
      // are at once), then PostgreSQL cancels it; 150 ms for round trips and the timers of a busy test machine.
      const slowest = Math.max(...normal[kind].map((r) => r.ms));
      const bound = slowest + CLAIM_STATEMENT_TIMEOUT_MS + slowest + 150;
      expect(
        locked[kind].map((r) => Math.round(r.ms)).filter((ms) => ms >= bound),
        `${kind} over ${bound} ms`,
      ).toEqual([]);
    }
    expect((await uncounted(metricsUrl, "read")) - before).toBe(25);
    const failures = linesWith(server.output(), "rate limit not counted");
    expect(failures.length).toBeGreaterThan(0);
    // PostgreSQL cancels each claim: one per request one by one, one for the 20 at once.
    for (const line of failures) expect(line).toMatchObject({ operation: "read", kind: "statement-timeout" });
  });
});

describe("a role with only SELECT and INSERT, under a creation limit", () => {
  let group: ProcessGroup;
  let baseUrl: string;
  let metricsUrl: string;
  let role: string;

  beforeAll(async () => {
    ({ role } = await roleWith(
      (name) => `GRANT USAGE ON SCHEMA public TO ${name};
        GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO ${name};
        GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${name}`,
    ));
    const port = await freePort();
    const metricsPort = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    // Not startServer: it waits for readiness, which this role does not reach.
    group = await startProcessGroup(
      "node",
      ["lib/runtime/start.mjs", "--no-build"],
      {
        PORT: String(port),
        DATABASE_URL: db.url.replace(/\/\/[^@]*@/, `//${role}:least@`),
        LEADS_API_KEY: TEST_KEY,
        LEADS_RATE_LIMIT_CREATE: "3/min",
        LEADS_METRICS_PORT: String(metricsPort),
      },
      `${baseUrl}/api/health/live`,
    );
  }, 120_000);

  afterAll(async () => {
    await group?.stop();
  });

  it("says so once at start naming the grant, is not ready, and lets requests pass counted as uncounted", async () => {
    const sentence =
      "LEADS_RATE_LIMIT_CREATE cannot be counted: the database role lacks UPDATE on lead_rate_limit_counts " +
      "(docs/host-guide.md, Grants), so limited requests pass uncounted and readiness answers 503 until it is granted";
    for (const deadline = Date.now() + 60_000; !group.output().includes("cannot be counted");) {
      if (Date.now() > deadline) throw new Error(`no start-up sentence\n${group.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(linesWith(group.output(), sentence)).toEqual([{ time: expect.any(String), level: "error", msg: sentence }]);
    expect((await fetch(`${baseUrl}/api/health/ready`)).status).toBe(503);

    const statuses = [];
    for (let n = 0; n < 8; n++)
      statuses.push((await call("POST", "/api/leads", { baseUrl, body: lead(100 + n) })).status);
    expect(statuses).toEqual(Array(8).fill(201));
    expect(await uncounted(metricsUrl, "create")).toBe(8);
    for (const line of linesWith(group.output(), "rate limit not counted"))
      expect(line).toMatchObject({ operation: "create", kind: "permission-denied", code: "42501" });
    expect(linesWith(group.output(), sentence)).toHaveLength(1);

    // Granted: ready again without a restart, and the limit holds (the budget the first role's server spent cleared).
    await db.sql.query(`GRANT UPDATE ON lead_rate_limit_counts TO ${role}`);
    await db.sql.query("TRUNCATE lead_rate_limit_counts");
    expect((await fetch(`${baseUrl}/api/health/ready`)).status).toBe(200);
    const after = [];
    for (let n = 0; n < 4; n++) after.push((await call("POST", "/api/leads", { baseUrl, body: lead(200 + n) })).status);
    expect(after).toEqual([201, 201, 201, 429]);
  });
});
