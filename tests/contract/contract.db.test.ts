import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { database } from "@/lib/db/prisma";
import { DEFAULT_POOL_SIZE } from "@/lib/db/connect";
import { call, type ApiResponse, type CallOptions } from "../helpers/api";
import { notConfigured } from "../helpers/key";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { contractViolations, openApiDocument } from "../helpers/openapi";
import { validLead } from "../helpers/lead";
import { creationContract, expectCode, listingContract, type ContractTarget } from "../helpers/contract-cases";

/**
 * Contract check: representative success and error responses of every operation
 * and alias, each validated against the OpenAPI document (call() throws on any
 * departure; the checks below also say which code each case must produce).
 */

let db: TestDatabase;
const SALES = { platformId: "sarah-lim-01", name: "Sarah Lim" };

/** Codes (or success statuses) seen per documented operation, to show every documented outcome was exercised. */
const seen = new Map<string, Set<string>>();

async function send(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
  const res = await call(method, path, options);
  const key = `${method.toLowerCase()} ${new URL(path, "http://x").pathname}`;
  if (!seen.has(key)) seen.set(key, new Set());
  // An error's code, or why readiness answered "unavailable".
  seen.get(key)!.add(res.status < 400 ? String(res.status) : (res.body.code ?? res.body.reason));
  expect(contractViolations(method, path, res)).toEqual([]);
  return res;
}

/** Runs `act` with one table renamed away, so the operation fails inside the database (500, logged by kind). */
async function withoutTable<T>(table: string, act: () => Promise<T>): Promise<T> {
  const log = vi.spyOn(console, "error").mockImplementation(() => {});
  await db.sql.query(`ALTER TABLE ${table} RENAME TO ${table}_away`);
  try {
    const result = await act();
    expect(log).toHaveBeenCalledWith(expect.stringContaining('"msg":"request failed"'));
    return result;
  } finally {
    log.mockRestore();
    await db.sql.query(`ALTER TABLE ${table}_away RENAME TO ${table}`);
  }
}

const SOURCE_PATHS = ["/api/leads/sources", "/api/leads/ads", "/api/sources"];
const AGENT_PATHS = ["/api/leads/agents", "/api/agents"];

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql.query(
    `INSERT INTO users (name, platform_id, access_levels) VALUES ($1, $2, '{sales}'), ('Ops Desk', 'ops-desk', '{support}')`,
    [SALES.name, SALES.platformId],
  );
  // A first lead, so every read has one to show.
  await send("POST", "/api/leads", { body: validLead({ leadName: "Aminah Binti Ali" }) });
});

afterAll(async () => {
  await db.sql.end();
});

describe("contract: GET /api/leads/sources and its aliases", () => {
  it.each(SOURCE_PATHS)("GET %s: 200, 401, 503, 500", async (path) => {
    const ok = await send("GET", path);
    expect(ok.status).toBe(200);
    expect(ok.body.sources.length).toBeGreaterThan(0);
    expect(ok.body.ads.length).toBeGreaterThan(0);
    await expectCode(send("GET", path, { key: null }), 401, "UNAUTHORIZED");
    await expectCode(send("GET", path, { key: "wrong-key" }), 401, "UNAUTHORIZED");
    await notConfigured(() => expectCode(send("GET", path), 503, "API_NOT_CONFIGURED"));
    await withoutTable("customers", () => expectCode(send("GET", path), 500, "INTERNAL_ERROR"));
  });
});

describe("contract: GET /api/leads/agents and its alias", () => {
  it.each(AGENT_PATHS)("GET %s: 200, 401, 503, 500", async (path) => {
    const ok = await send("GET", path);
    expect(ok.status).toBe(200);
    expect(ok.body.agents).toEqual([expect.objectContaining({ id: SALES.platformId, accessLevels: ["sales"] })]);
    await expectCode(send("GET", path, { key: null }), 401, "UNAUTHORIZED");
    await notConfigured(() => expectCode(send("GET", path), 503, "API_NOT_CONFIGURED"));
    await withoutTable("users", () => expectCode(send("GET", path), 500, "INTERNAL_ERROR"));
  });
});

const target: ContractTarget = {
  send,
  sales: {
    platformId: SALES.platformId,
    numericId: async () =>
      (await db.sql.query<{ id: number }>(`SELECT id FROM users WHERE platform_id = $1`, [SALES.platformId])).rows[0]
        .id,
  },
  notSales: "ops-desk",
};

creationContract(target);

describe("contract: POST /api/leads in this service's database", () => {
  const lead = validLead({ referrer: "Roadshow Mid Valley" });

  it("503 API_NOT_CONFIGURED and 500 INTERNAL_ERROR", async () => {
    await notConfigured(() => expectCode(send("POST", "/api/leads", { body: lead }), 503, "API_NOT_CONFIGURED"));
    await withoutTable("audit_entries", () =>
      expectCode(send("POST", "/api/leads", { body: lead }), 500, "INTERNAL_ERROR"),
    );
  });
});

listingContract(target);

describe("contract: GET /api/leads in this service's database", () => {
  it("503 API_NOT_CONFIGURED and 500 INTERNAL_ERROR", async () => {
    await notConfigured(() => expectCode(send("GET", "/api/leads"), 503, "API_NOT_CONFIGURED"));
    await withoutTable("referrals", () => expectCode(send("GET", "/api/leads"), 500, "INTERNAL_ERROR"));
  });
});

describe("contract: 304 and 503 READS_BUSY of the read operations", () => {
  it.each(SOURCE_PATHS)("GET %s: 304 with the list's ETag in If-None-Match", async (path) => {
    const tag = (await send("GET", path)).headers.get("etag")!;
    expect((await send("GET", path, { headers: { "if-none-match": tag } })).status).toBe(304);
  });

  it.each(SOURCE_PATHS)(
    "GET %s: 400 INVALID_INPUT for an If-None-Match over the documented length, even naming the ETag",
    async (path) => {
      const tag = (await send("GET", path)).headers.get("etag")!;
      const long = `${tag},${'"0",'.repeat(300)}${tag}`;
      const res = await expectCode(send("GET", path, { headers: { "if-none-match": long } }), 400, "INVALID_INPUT");
      expect(res.body.issues).toEqual([{ path: "If-None-Match", message: "Too long: at most 1024 characters" }]);
    },
  );

  it("503 READS_BUSY with Retry-After on every read path while the read connections and the line behind them are taken", async () => {
    // Reads held on a lock of the total they read take every read connection and fill the line; later reads are
    // refused at once, and those in line after 2 s.
    const lock = await db.sql.connect();
    let held: Promise<ApiResponse>[] = [];
    try {
      await lock.query("BEGIN");
      await lock.query("LOCK TABLE lead_source_lead_counts IN ACCESS EXCLUSIVE MODE");
      held = Array.from({ length: 100 }, () => call("GET", "/api/leads?limit=1"));
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const path of ["/api/leads", ...SOURCE_PATHS, ...AGENT_PATHS]) {
        const res = await expectCode(send("GET", path), 503, "READS_BUSY");
        expect(res.headers.get("retry-after")).toBe("1");
      }
    } finally {
      await lock.query("COMMIT");
      lock.release();
    }
    const answers = await Promise.all(held);
    expect(answers.filter((a) => a.status !== 200 && a.body.code !== "READS_BUSY")).toEqual([]);
  });
});

describe("contract: 429 RATE_LIMITED", () => {
  it("answers every operation and alias over its key's limit with 429, Retry-After and RateLimit headers", async () => {
    process.env.LEADS_RATE_LIMIT_CREATE = "1/hour";
    process.env.LEADS_RATE_LIMIT_READ = "1/hour";
    try {
      const lead = validLead({ leadName: "Limited Contract Lead" });
      const first = await send("POST", "/api/leads", { body: lead });
      expect(first.status).toBe(201);
      const limited = [await expectCode(send("POST", "/api/leads", { body: lead }), 429, "RATE_LIMITED")];
      expect((await send("GET", "/api/leads")).status).toBe(200);
      for (const path of ["/api/leads", ...SOURCE_PATHS, ...AGENT_PATHS]) {
        limited.push(await expectCode(send("GET", path), 429, "RATE_LIMITED"));
      }
      for (const res of limited) {
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        expect(res.headers.get("ratelimit-policy")).toMatch(/^"(create|read)";q=1;w=3600$/);
        const policy = res.headers.get("ratelimit-policy")!.split(";")[0];
        expect(res.headers.get("ratelimit")).toBe(`${policy};r=0;t=${res.headers.get("retry-after")}`);
      }
    } finally {
      delete process.env.LEADS_RATE_LIMIT_CREATE;
      delete process.env.LEADS_RATE_LIMIT_READ;
    }
  });
});

describe("contract: paths and methods outside the document", () => {
  it("answers an unknown path with the documented 404 and an unsupported method with the documented 405", async () => {
    for (const path of ["/api/v1/leads", "/api/leads/123", "/api/webhooks"]) {
      await expectCode(send("GET", path), 404, "NOT_FOUND");
    }
    for (const [method, path] of [
      ["DELETE", "/api/leads"],
      ["PUT", "/api/leads"],
      ["POST", "/api/leads/sources"],
      ["POST", "/api/leads/ads"],
      ["PATCH", "/api/sources"],
      ["POST", "/api/leads/agents"],
      ["DELETE", "/api/agents"],
    ]) {
      const res = await expectCode(send(method, path), 405, "METHOD_NOT_ALLOWED");
      expect(res.headers.get("allow")).toBeTruthy();
    }
  });
});

describe("contract: health checks", () => {
  it("answers liveness 200 and readiness 200, or 503 when the database does not answer in time", async () => {
    expect((await send("GET", "/api/health/live", { key: null })).body).toEqual({ status: "ok" });
    expect((await send("GET", "/api/health/ready", { key: null })).body).toEqual({ status: "ok" });
    // Every pooled connection busy for longer than readiness waits: the database does not answer in time.
    const busy = Promise.all(
      Array.from({ length: DEFAULT_POOL_SIZE }, () => database().$queryRaw`SELECT 1 AS slept FROM pg_sleep(4)`),
    );
    const sleeping = async () =>
      (
        await db.sql.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'SELECT 1 AS slept FROM pg_sleep(4)%'",
        )
      ).rows[0].n;
    while ((await sleeping()) < DEFAULT_POOL_SIZE) await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    expect((await send("GET", "/api/health/ready", { key: null })).body).toEqual({
      status: "unavailable",
      reason: "database-not-ready",
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    await busy;
    expect((await send("GET", "/api/health/ready", { key: null })).status).toBe(200);
  });

  it("answers readiness 503 not-configured while the data operations would answer 503 API_NOT_CONFIGURED", async () => {
    const ready = await notConfigured(() => send("GET", "/api/health/ready", { key: null }));
    expect({ status: ready.status, body: ready.body }).toEqual({
      status: 503,
      body: { status: "unavailable", reason: "not-configured" },
    });
  });
});

describe("contract: coverage and strictness", () => {
  it("exercised every documented outcome of every operation and alias (ASSIGNMENT_NOT_CONFIGURED: contract-no-assignment.test.ts; MALFORMED_REQUEST, the preload's: honest-answers.test.ts; CREATION_BUSY: creation-busy.db.test.ts)", () => {
    const doc = openApiDocument();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const documented = new Set<string>();
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          if (Number(status) < 400) documented.add(status);
          else if (!response.$ref) {
            for (const name of Object.keys(response.content["application/json"].examples)) documented.add(name);
          }
        }
        documented.delete("ASSIGNMENT_NOT_CONFIGURED");
        documented.delete("MALFORMED_REQUEST");
        documented.delete("CREATION_BUSY");
        expect([...(seen.get(`${method} ${path}`) ?? [])].sort(), `${method} ${path}`).toEqual([...documented].sort());
      }
    }
  });

  it("rejects a response with a field the document lacks, a missing field, a wrong code or an undocumented status", async () => {
    const res = await call("GET", "/api/leads?limit=1");
    const lead = res.body.leads[0];
    const variant = (body: unknown, status = res.status, headers = res.headers) =>
      contractViolations("GET", "/api/leads", { status, headers, body });

    expect(variant(res.body)).toEqual([]);
    expect(variant({ ...res.body, leads: [{ ...lead, campaignId: "c1" }] }).join()).toMatch(/additional/);
    const { remark, ...withoutRemark } = lead;
    expect(variant({ ...res.body, leads: [withoutRemark] }).join()).toMatch(/required property 'remark'/);
    expect(variant({ ...res.body, pagination: { ...res.body.pagination, total: -1 } }).join()).toMatch(/>= 0/);
    expect(variant({ error: "x", code: "INVALID_AGENT" }, 400).join()).toMatch(/allowed values/);
    expect(variant({ error: "x", code: "INVALID_INPUT" }, 400).join()).toMatch(/required property 'issues'/);
    // One Error schema for every code: issues on another code than INVALID_INPUT is refused by its else branch.
    expect(variant({ error: "x", code: "INTERNAL_ERROR", issues: [{ path: "", message: "x" }] }, 500).join()).toMatch(
      /issues boolean schema is false/,
    );
    expect(variant({ error: "x", code: "INTERNAL_ERROR", extra: 1 }, 500).join()).toMatch(/additional/);
    expect(variant({ error: "x", code: "INVALID_REFERRER" }, 422).join()).toMatch(/status 422 is not documented/);
    expect(variant(res.body, 200, new Headers({ "content-type": "application/json" })).join()).toMatch(
      /Cache-Control is missing/,
    );
    expect(
      variant(res.body, 200, new Headers({ "content-type": "application/json", "cache-control": "max-age=60" })).join(),
    ).toMatch(/Cache-Control/);
  });

  it("makes call() throw when a server's response departs from the document", async () => {
    let server: Server | undefined;
    try {
      server = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
        res.end(JSON.stringify({ sources: [], ads: [], nextCursor: null }));
      });
      await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await expect(call("GET", "/api/leads/sources", { baseUrl })).rejects.toThrow(
        /does not match the OpenAPI document[\s\S]*additional/,
      );
    } finally {
      await new Promise((resolve) => server?.close(resolve));
    }
  });
});
