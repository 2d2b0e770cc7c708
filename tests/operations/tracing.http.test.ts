import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp-receiver";
import { startServer, type RunningServer } from "../helpers/server";
import { validLead } from "../helpers/lead";

/**
 * Tracing: the production server with OTEL_EXPORTER_OTLP_ENDPOINT pointed at
 * a small OTLP/HTTP (JSON) receiver in this test. The spans of a POST continue the
 * caller's traceparent, include the route span with the request id and error code and
 * database spans (Prisma's and the creation statement's), and carry no key and no personal data.
 */
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

let db: TestDatabase;
let server: RunningServer;
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver("/v1/traces");
  db = await createTestDatabase({ use: false });
  server = await startServer(db.url, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "100",
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await db.sql.end();
});

function spans(): Span[] {
  return receiver.bodies.flatMap((body) =>
    (JSON.parse(body).resourceSpans ?? []).flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans as Span[])),
  );
}

async function spansOf(traceId: string, until: (found: Span[]) => boolean): Promise<Span[]> {
  const deadline = Date.now() + 15_000;
  let found: Span[] = [];
  while (Date.now() < deadline) {
    found = spans().filter((s) => s.traceId === traceId);
    if (until(found)) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return found;
}

const attribute = (span: Span, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value && Object.values(value)[0];
};

async function post(body: unknown, traceId: string, parentId: string, requestId: string): Promise<Response> {
  return fetch(`${server.baseUrl}/api/leads`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TEST_KEY}`,
      "content-type": "application/json",
      traceparent: `00-${traceId}-${parentId}-01`,
      "x-request-id": requestId,
    },
    body: JSON.stringify(body),
  });
}

describe("tracing over OTLP/HTTP", () => {
  it("exports the spans of a POST: the caller's trace, the route span with the request id, database spans, no PII", async () => {
    const traceId = randomBytes(16).toString("hex");
    const parentId = randomBytes(8).toString("hex");
    const lead = validLead({
      leadName: "Traced Lead Kusumawati",
      leadMobileNumber: "017-246 8135",
      leadAddress: "9 Jalan Jejak",
      referrer: "Trace Expo",
    });
    const response = await post(lead, traceId, parentId, "traced-post-1");
    expect(response.status).toBe(201);

    const found = await spansOf(
      traceId,
      (s) => s.some((x) => attribute(x, "db.query.text")) && s.some((x) => attribute(x, "lead_intake.request_id")),
    );
    // The caller's traceparent is honoured: the server's root span is a child of the caller's span.
    expect(found.some((s) => s.parentSpanId === parentId)).toBe(true);
    const routeSpans = found.filter((s) => attribute(s, "lead_intake.request_id") === "traced-post-1");
    expect(routeSpans.length).toBeGreaterThan(0);
    expect(routeSpans.some((s) => attribute(s, "lead_intake.error_code") !== undefined)).toBe(false);
    const queries = found.filter((s) => attribute(s, "db.query.text"));
    // The creation statement, sent straight to the pool (lib/db/prepared.ts), has its own span beside Prisma's.
    expect(
      queries.some(
        (s) =>
          s.name === "lead_intake:db_query" && /INSERT INTO "referrals"/.test(String(attribute(s, "db.query.text"))),
      ),
    ).toBe(true);
    expect(queries.length, found.map((s) => s.name).join()).toBeGreaterThan(0);
    // Every span belongs to the one trace, and none holds the key or the lead's personal data.
    const text = JSON.stringify(found);
    for (const secret of [TEST_KEY, lead.leadName, lead.leadMobileNumber, "2468135", lead.leadAddress])
      expect(text).not.toContain(secret);
  });

  it("puts the error code on the route span of a refused POST", async () => {
    const traceId = randomBytes(16).toString("hex");
    const response = await post(
      validLead({
        leadName: "Refused Trace",
        referrer: "Trace Expo",
        assignedAgentId: "nobody-here",
      }),
      traceId,
      randomBytes(8).toString("hex"),
      "traced-post-2",
    );
    expect(response.status).toBe(422);
    const found = await spansOf(traceId, (s) => s.some((x) => attribute(x, "lead_intake.error_code")));
    expect(
      found
        .filter((s) => attribute(s, "lead_intake.error_code") === "INVALID_AGENT")
        .map((s) => attribute(s, "lead_intake.request_id")),
    ).toEqual(["traced-post-2"]);
    expect(JSON.stringify(found)).not.toContain("Refused Trace");
  });

  it("keeps the query string (a misplaced key) out of the spans of a GET", async () => {
    const traceId = randomBytes(16).toString("hex");
    const response = await fetch(`${server.baseUrl}/api/leads?referrer=Trace%20Expo&api_key=${TEST_KEY}`, {
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01`,
      },
    });
    expect(response.status).toBe(400);
    const found = await spansOf(traceId, (s) => s.some((x) => attribute(x, "http.target")));
    expect(found.filter((s) => attribute(s, "http.target")).map((s) => attribute(s, "http.target"))).toEqual([
      "/api/leads",
    ]);
    expect(JSON.stringify(found)).not.toContain(TEST_KEY);
  });

  it("keeps a key pasted into the path out of the spans of a GET", async () => {
    const traceId = randomBytes(16).toString("hex");
    const response = await fetch(`${server.baseUrl}/api/leads/${TEST_KEY}`, {
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01`,
      },
    });
    expect(response.status).toBe(404);
    const found = await spansOf(traceId, (s) => s.some((x) => attribute(x, "http.target")));
    expect(found.filter((s) => attribute(s, "http.target")).map((s) => attribute(s, "http.target"))).toEqual([
      "/api/leads/[redacted]",
    ]);
    expect(JSON.stringify(found)).not.toContain(TEST_KEY);
  });
});
