import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, postAdmitted, TEST_KEY } from "../helpers/api";
import { createTestDatabase, rowCounts, type TestDatabase } from "../helpers/db";
import { startServer, type RunningServer } from "../helpers/server";
import { validLead } from "../helpers/lead";

/**
 * The production build, started as the README says, over real HTTP: two server
 * processes on one database, as a host would run them behind a load balancer.
 */
let db: TestDatabase;
let servers: RunningServer[];

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  servers = await Promise.all([startServer(db.url), startServer(db.url)]);
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await db.sql.end();
});

const lead = (referrer: unknown, i: number) =>
  validLead({
    leadName: `Http Lead ${i}`,
    leadMobileNumber: `012-345 ${String(6000 + i)}`,
    leadAddress: `${i} Jalan Rahsia`,
    referrer,
  });

describe("production server over HTTP", () => {
  it("answers every operation and alias with JSON and Cache-Control: no-store", async () => {
    const baseUrl = servers[0].baseUrl;
    const checks: [string, string, number][] = [
      ["GET", "/api/leads/sources", 200],
      ["GET", "/api/leads/ads", 200],
      ["GET", "/api/sources", 200],
      ["GET", "/api/leads/agents", 200],
      ["GET", "/api/agents", 200],
      ["GET", "/api/leads?limit=5", 200],
      ["GET", "/api/leads?limit=0", 400],
      ["GET", "/api/nowhere", 404],
      ["POST", "/api/nowhere/deeper", 404],
      ["GET", "/api", 404],
      ["DELETE", "/api/leads", 405],
      ["PUT", "/api/leads/sources", 405],
      ["PATCH", "/api/agents", 405],
    ];
    for (const [method, path, status] of checks) {
      const res = await call(method, path, { baseUrl });
      expect({ method, path, status: res.status }).toEqual({ method, path, status });
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      if (status >= 400) expect(typeof res.body.code).toBe("string");
    }
  });

  it("answers a GET of the sources with the ETag it was given in If-None-Match with 304 and no body, through either process", async () => {
    const first = await call("GET", "/api/leads/sources", { baseUrl: servers[0].baseUrl });
    const tag = first.headers.get("etag")!;
    expect(tag).toMatch(/^"\d+"$/);
    for (const { baseUrl } of servers) {
      const res = await call("GET", "/api/leads/sources", { baseUrl, headers: { "if-none-match": tag } });
      expect({ status: res.status, text: res.text, etag: res.headers.get("etag") }).toEqual({
        status: 304,
        text: "",
        etag: tag,
      });
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
  });

  it("never authenticates a key given in the URL", async () => {
    const res = await call("GET", `/api/leads/sources?key=${TEST_KEY}&access_token=${TEST_KEY}`, {
      baseUrl: servers[0].baseUrl,
      key: null,
    });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("UNAUTHORIZED");
  });

  it("challenges every 401 with WWW-Authenticate: Bearer, saying invalid_token when a bearer key was sent (RFC 6750)", async () => {
    const baseUrl = servers[0].baseUrl;
    const cases: [Record<string, string>, string][] = [
      [{}, "Bearer"],
      [{ authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }, "Bearer"],
      [{ authorization: "Bearer" }, "Bearer"],
      [{ authorization: `Bearer ${TEST_KEY}x` }, 'Bearer error="invalid_token"'],
      [{ authorization: "bearer short" }, 'Bearer error="invalid_token"'],
    ];
    for (const path of ["/api/leads/sources", "/api/leads/agents", "/api/leads", "/api/sources"]) {
      for (const [headers, challenge] of cases) {
        const res = await call("GET", path, { baseUrl, key: null, headers });
        expect({ path, headers, status: res.status, challenge: res.headers.get("www-authenticate") }).toEqual({
          path,
          headers,
          status: 401,
          challenge,
        });
      }
    }
    const res = await call("POST", "/api/leads", { baseUrl, key: null, body: lead("Facebook Ads", 0) });
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
  });

  it("refuses an If-None-Match longer than the document allows with 400 INVALID_INPUT, and takes one at the bound", async () => {
    const { baseUrl } = servers[0];
    const tag = (await call("GET", "/api/leads/sources", { baseUrl })).headers.get("etag")!;
    const condition = (length: number) => `${tag},${" ".repeat(length - tag.length - 4)}"0"`;
    const atBound = condition(1024);
    expect(atBound.length).toBe(1024);
    expect((await call("GET", "/api/leads/sources", { baseUrl, headers: { "if-none-match": atBound } })).status).toBe(
      304,
    );
    const over = condition(1025);
    const res = await call("GET", "/api/leads/sources", { baseUrl, headers: { "if-none-match": over } });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path: "If-None-Match", message: "Too long: at most 1024 characters" }]);
  });

  it("serves /openapi.json as docs/operating.md says: no-cache with an ETag, so a cache revalidates it before every use", async () => {
    const res = await fetch(`${servers[0].baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("etag")).toMatch(/^(W\/)?"[^"]+"$/);
  });

  it("refuses a body over 1 MiB with 413, declared or streamed, and saves nothing", async () => {
    const before = await rowCounts(db.sql);
    const big = JSON.stringify({ ...lead("Big Source", 0), remark: "x".repeat(1024 * 1024) });
    const declared = await call("POST", "/api/leads", { baseUrl: servers[0].baseUrl, body: big });
    expect(declared.status).toBe(413);
    expect(declared.body.code).toBe("PAYLOAD_TOO_LARGE");

    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        const piece = new TextEncoder().encode("x".repeat(64 * 1024));
        controller.enqueue(new TextEncoder().encode('{"remark":"'));
        for (let i = 0; i < 20; i++) controller.enqueue(piece);
        controller.close();
      },
    });
    const streamed = await fetch(`${servers[1].baseUrl}/api/leads`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" },
      body: chunks,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await streamed.json()).code).toBe("PAYLOAD_TOO_LARGE");
    expect(await rowCounts(db.sql)).toEqual(before);
  });

  it("creates exactly one account for a new source named concurrently through two processes", async () => {
    const variants = ["Roadshow KL 2026", "roadshow kl 2026", "  ROADSHOW   KL 2026 ", "Roadshow  kl  2026"];
    // 30 at once per process, more than lead creation admits at once on the default pool (its connections and their
    // line): one refused with CREATION_BUSY is sent again after its Retry-After.
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        postAdmitted(lead(variants[i % variants.length], i), { baseUrl: servers[i % 2].baseUrl }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 201));
    const referrerIds = new Set(responses.map((r) => r.body.lead.referrer.customerId));
    expect(referrerIds.size).toBe(1);
    const ids = responses.map((r) => r.body.lead.referralId);
    expect(new Set(ids).size).toBe(60);

    const { rows } = await db.sql.query(
      `SELECT count(*)::int AS n FROM customers WHERE kind = 'source' AND lower(name) = 'roadshow kl 2026'`,
    );
    expect(rows[0].n).toBe(1);

    const listed = await call("GET", `/api/leads?referrer=${encodeURIComponent("ROADSHOW KL 2026")}&limit=500`, {
      baseUrl: servers[1].baseUrl,
    });
    expect(listed.body.pagination.total).toBe(60);
    expect(listed.body.leads.map((l: { referralId: number }) => l.referralId).sort()).toEqual([...ids].sort());
  });

  it("keeps the key and the leads' personal data out of its output", async () => {
    const output = servers.map((s) => s.output()).join("\n");
    expect(output).toContain("Ready");
    for (const secret of [TEST_KEY, "Http Lead", "Jalan Rahsia", "60123456"]) expect(output).not.toContain(secret);
  });
});
