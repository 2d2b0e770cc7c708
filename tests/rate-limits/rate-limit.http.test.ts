import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, TEST_KEY, type ApiResponse } from "../helpers/api";
import { expectError } from "../helpers/expect-api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { startServer, type RunningServer } from "../helpers/server";
import { validLead } from "../helpers/lead";

/**
 * Rate limits per key, shared by two server processes on one database: a small limit for lead creation and one for
 * reads, each key (current and previous) with its own budget. Over it: 429 RATE_LIMITED with Retry-After and the
 * IETF RateLimit headers, nothing written. When the limiter's table cannot be written, requests pass and the failure
 * is logged by kind.
 */
const CREATE_LIMIT = 5;
const READ_LIMIT = 4;
const PREVIOUS_KEY = "previous-key-9876543210-9876543210-98765";

let db: TestDatabase;
let servers: RunningServer[];

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  const env = {
    LEADS_RATE_LIMIT_CREATE: `${CREATE_LIMIT}/hour`,
    LEADS_RATE_LIMIT_READ: `${READ_LIMIT}/hour`,
    LEADS_API_KEY_PREVIOUS: PREVIOUS_KEY,
  };
  servers = await Promise.all([startServer(db.url, env), startServer(db.url, env)]);
}, 180_000);

afterAll(async () => {
  await Promise.all((servers ?? []).map((server) => server.stop()));
  await db?.sql.end();
});

const lead = (n: number) =>
  validLead({
    leadName: `Limited Lead ${n}`,
    leadMobileNumber: `012-345 ${String(6000 + n)}`,
    referrer: "Rate Limit Expo",
  });
const leadCount = async () =>
  Number((await db.sql.query("SELECT count(*) FROM referrals WHERE lead_name LIKE 'Limited Lead %'")).rows[0].count);

function expectLimited(res: ApiResponse, operation: "create" | "read", limit: number): void {
  expectError(res, 429, "RATE_LIMITED");
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(3600);
  expect(res.headers.get("ratelimit-policy")).toBe(`"${operation}";q=${limit};w=3600`);
  expect(res.headers.get("ratelimit")).toBe(`"${operation}";r=0;t=${retryAfter}`);
}

describe("rate limits shared by two processes", () => {
  it("creates exactly the limit of leads per key across both processes, refuses the rest 429 and writes nothing for them", async () => {
    const answers: ApiResponse[] = [];
    // Sent in turn to the two processes, a few at a time.
    for (let n = 0; n < 3 * CREATE_LIMIT; n += 3) {
      answers.push(
        ...(await Promise.all(
          [0, 1, 2].map((i) =>
            call("POST", "/api/leads", { baseUrl: servers[(n + i) % 2].baseUrl, body: lead(n + i) }),
          ),
        )),
      );
    }
    expect(answers.filter((res) => res.status === 201)).toHaveLength(CREATE_LIMIT);
    for (const res of answers.filter((r) => r.status !== 201)) expectLimited(res, "create", CREATE_LIMIT);
    expect(await leadCount()).toBe(CREATE_LIMIT);

    // The previous key has its own budget; the current one is still spent.
    const previous = await call("POST", "/api/leads", {
      baseUrl: servers[1].baseUrl,
      body: lead(100),
      key: PREVIOUS_KEY,
    });
    expect(previous.status).toBe(201);
    expectLimited(
      await call("POST", "/api/leads", { baseUrl: servers[0].baseUrl, body: lead(101) }),
      "create",
      CREATE_LIMIT,
    );
    expect(await leadCount()).toBe(CREATE_LIMIT + 1);
    // Keys are counted by digest: the table holds no key.
    const stored = JSON.stringify(
      (await db.sql.query("SELECT encode(key_digest, 'escape') AS k, * FROM lead_rate_limit_counts")).rows,
    );
    expect(stored).not.toContain(TEST_KEY);
    expect(stored).not.toContain(PREVIOUS_KEY);
    // Nothing granted to PUBLIC: an ACL entry for PUBLIC has an empty grantee ("=r/owner").
    const { rows } = await db.sql.query(
      "SELECT relacl::text AS acl FROM pg_class WHERE relname = 'lead_rate_limit_counts'",
    );
    expect(rows[0].acl).not.toBeNull();
    expect(rows[0].acl).not.toMatch(/[{,]=/);
  });

  it("limits the reads apart from creation, on every read path", async () => {
    const paths = [
      "/api/leads/sources",
      "/api/leads/agents",
      "/api/leads?referrer=Rate%20Limit%20Expo",
      "/api/sources",
      "/api/leads/ads",
    ];
    const answers = [];
    for (const path of paths) answers.push(await call("GET", path, { baseUrl: servers[answers.length % 2].baseUrl }));
    expect(answers.slice(0, READ_LIMIT).map((res) => res.status)).toEqual(Array(READ_LIMIT).fill(200));
    expectLimited(answers[READ_LIMIT], "read", READ_LIMIT);
    // Unauthorised requests are refused before they are counted.
    expectError(
      await call("GET", "/api/leads/sources", {
        baseUrl: servers[0].baseUrl,
        key: "wrong-key-0123456789-0123456789-01234567",
      }),
      401,
      "UNAUTHORIZED",
    );
  });

  it("lets requests pass when the limiter's table fails, and logs the failure by kind", async () => {
    await db.sql.query("ALTER TABLE lead_rate_limit_counts RENAME TO lead_rate_limit_counts_away");
    try {
      // The previous key: this process holds no share of its budget yet, so it must claim one.
      const res = await call("POST", "/api/leads", { baseUrl: servers[0].baseUrl, body: lead(200), key: PREVIOUS_KEY });
      expect(res.status).toBe(201);
      const deadline = Date.now() + 5_000;
      while (!servers[0].output().includes('"msg":"rate limit not counted"') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const line = servers[0]
        .output()
        .split("\n")
        .find((l) => l.includes('"msg":"rate limit not counted"'));
      expect(JSON.parse(line!)).toMatchObject({
        level: "error",
        operation: "create",
        kind: "schema-mismatch",
        code: "42P01",
      });
      expect(line).not.toContain("lead_rate_limit_counts");
    } finally {
      await db.sql.query("ALTER TABLE lead_rate_limit_counts_away RENAME TO lead_rate_limit_counts");
    }
    expectLimited(
      await call("POST", "/api/leads", { baseUrl: servers[0].baseUrl, body: lead(201) }),
      "create",
      CREATE_LIMIT,
    );
  });
});

describe("a limit claimed in shares by two processes", () => {
  const LIMIT = 300;
  const SHARE = LIMIT / 100;
  let pair: RunningServer[];

  beforeAll(async () => {
    const env = { LEADS_RATE_LIMIT_CREATE: `${LIMIT}/hour` };
    pair = await Promise.all([startServer(db.url, env), startServer(db.url, env)]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all((pair ?? []).map((server) => server.stop()));
  });

  it("creates the limit of leads less at most one share the other process holds, never more, and refuses the rest", async () => {
    await db.sql.query("TRUNCATE lead_rate_limit_counts");
    const before = await leadCount();
    const answers: ApiResponse[] = [];
    for (let n = 0; n < LIMIT + 8 * SHARE; n += 4) {
      answers.push(
        ...(await Promise.all(
          [0, 1, 2, 3].map((i) =>
            call("POST", "/api/leads", { baseUrl: pair[(n + i) % 2].baseUrl, body: lead(1000 + n + i) }),
          ),
        )),
      );
    }
    const created = answers.filter((res) => res.status === 201).length;
    expect(created).toBeLessThanOrEqual(LIMIT);
    expect(created).toBeGreaterThanOrEqual(LIMIT - SHARE);
    for (const res of answers.filter((r) => r.status !== 201)) expectLimited(res, "create", LIMIT);
    expect(await leadCount()).toBe(before + created);
    const { rows } = await db.sql.query<{ hits: number }>("SELECT hits FROM lead_rate_limit_counts");
    expect(rows).toEqual([{ hits: LIMIT + SHARE }]);
  });
});
