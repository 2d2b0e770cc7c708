import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OTHER_ROUTE, ROUTES } from "@/lib/api/route";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";
import { call, TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { sendOnOwnSocket } from "../helpers/raw-http";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp-receiver";
import { startServer, type RunningServer } from "../helpers/server";
import { validLead } from "../helpers/lead";

/**
 * Metrics with real parts: the production server with LEADS_METRICS_PORT and OTLP/HTTP (JSON) pointed at a small
 * receiver in this test; Debian's Prometheus (scripts/ensure-prometheus.sh) scrapes the metrics port every second.
 * A known load is read back through Prometheus' HTTP API, a scrape passes `promtool check metrics`, the OTLP export
 * carries the same counts, and fuzzed paths, methods, headers and query strings add no series.
 */
const CREATE_LIMIT = 8;
const LEAD = validLead({
  leadName: "Metered Lead Wirawan",
  leadMobileNumber: "019-876 5432",
  referrer: `Metrics Expo ${randomBytes(3).toString("hex")}`,
});
const WRONG_KEY = "wrong-key-0123456789-0123456789-01234567";

let db: TestDatabase;
let server: RunningServer;
let metricsUrl: string;
let prometheus: ProcessGroup;
let prometheusUrl: string;
let workdir: string;
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver("/v1/metrics");
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  db = await createTestDatabase({ use: false });
  server = await startServer(db.url, {
    LEADS_METRICS_PORT: String(metricsPort),
    LEADS_RATE_LIMIT_CREATE: `${CREATE_LIMIT}/hour`,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_METRIC_EXPORT_INTERVAL: "500",
  });
  workdir = await mkdtemp(path.join(tmpdir(), "lead-intake-prometheus-"));
  const config = path.join(workdir, "prometheus.yml");
  await writeFile(
    config,
    `scrape_configs:\n  - job_name: lead-intake\n    scrape_interval: 1s\n    static_configs:\n      - targets: ["127.0.0.1:${metricsPort}"]\n`,
  );
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = await startProcessGroup(
    "prometheus",
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(workdir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    {},
    `${prometheusUrl}/-/ready`,
  );
}, 180_000);

afterAll(async () => {
  await prometheus?.stop();
  await server?.stop();
  await receiver?.close();
  await db?.sql.end();
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

/** The value of an instant query per value of `by`, polled until `until` holds or 30 s pass. */
async function query(
  promql: string,
  by: string,
  until: (values: Record<string, number>) => boolean,
): Promise<Record<string, number>> {
  const deadline = Date.now() + 30_000;
  let values: Record<string, number> = {};
  while (Date.now() < deadline) {
    const answer = await (await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`)).json();
    expect(answer.status).toBe("success");
    values = Object.fromEntries(
      answer.data.result.map((r: { metric: Record<string, string>; value: [number, string] }) => [
        r.metric[by] ?? "",
        Number(r.value[1]),
      ]),
    );
    if (until(values)) return values;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return values;
}

/** Runs a command with `input` on stdin: its exit code and everything it printed. */
function run(command: string, args: string[], input = ""): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(command, args, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
    child.stdin!.end(input);
  });
}

const scrape = async () => (await fetch(metricsUrl)).text();
const seriesOf = (text: string, name: string) =>
  text.split("\n").filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
const labelValues = (text: string, label: string) =>
  new Set([...text.matchAll(new RegExp(`${label}="([^"]*)"`, "g"))].map((m) => m[1]));

describe("metrics", () => {
  it("counts a known load exactly, as Prometheus reads it from the metrics port", async () => {
    const sent: Record<string, number> = { 201: 0, 400: 0, 401: 0, 429: 0 };
    // Invalid POSTs count against the key's creation budget too: 3 of them, then 7 leads of which 5 fit.
    for (let n = 0; n < 3; n++)
      sent[(await call("POST", "/api/leads", { baseUrl: server.baseUrl, body: { leadName: "x" } })).status]++;
    for (let n = 0; n < 7; n++)
      sent[(await call("POST", "/api/leads", { baseUrl: server.baseUrl, body: LEAD })).status]++;
    for (let n = 0; n < 4; n++)
      sent[(await call("POST", "/api/leads", { baseUrl: server.baseUrl, body: LEAD, key: WRONG_KEY })).status]++;
    expect(sent).toEqual({ 201: 5, 400: 3, 401: 4, 429: 2 });
    for (let n = 0; n < 6; n++)
      expect((await call("GET", "/api/leads/sources", { baseUrl: server.baseUrl })).status).toBe(200);

    const posts = 'http_server_request_duration_seconds_count{http_route="/api/leads",http_request_method="POST"}';
    const expected = { "201": 5, "400": 3, "401": 4, "429": 2 };
    expect(
      await query(
        `sum by (http_response_status_code) (${posts})`,
        "http_response_status_code",
        (v) => JSON.stringify(v) === JSON.stringify(expected),
      ),
    ).toEqual(expected);
    const codes = await query(`sum by (error_type) (${posts})`, "error_type", (v) => v.RATE_LIMITED === 2);
    expect(codes).toEqual({ "": 5, INVALID_INPUT: 3, UNAUTHORIZED: 4, RATE_LIMITED: 2 });
    const reads =
      'http_server_request_duration_seconds_count{http_route="/api/leads/sources",http_request_method="GET",http_response_status_code="200"}';
    expect(await query(`sum(${reads})`, "", (v) => v[""] === 6)).toEqual({ "": 6 });
    // The first lead made its source; the four others reused it.
    const created = await query(
      "sum by (lead_intake_source_new) (lead_intake_leads_created_total)",
      "lead_intake_source_new",
      (v) => v.false === 4,
    );
    expect(created).toEqual({ true: 1, false: 4 });
    expect(
      await query(
        "sum by (lead_intake_rate_limit_operation) (lead_intake_rate_limited_total)",
        "lead_intake_rate_limit_operation",
        (v) => v.create === 2,
      ),
    ).toEqual({ create: 2 });
    // The histogram's buckets: every request took under 10 s.
    expect(
      await query(
        `sum(http_server_request_duration_seconds_bucket{http_route="/api/leads",le="10"})`,
        "",
        (v) => v[""] === 14,
      ),
    ).toEqual({ "": 14 });

    const text = await scrape();
    for (const name of [
      "db_client_connections_usage",
      "db_client_connections_pending_requests",
      "lead_intake_reads_in_use",
      "lead_intake_reads_waiting",
    ]) {
      expect(seriesOf(text, name).length, name).toBeGreaterThan(0);
    }
    expect(text).toMatch(/db_client_connections_usage\{[^}]*state="idle"[^}]*\} [1-9]/);
    for (const secret of [TEST_KEY, WRONG_KEY, LEAD.leadName, LEAD.leadMobileNumber, "60198765432", LEAD.referrer])
      expect(text).not.toContain(secret);
  }, 120_000);

  it("passes promtool check metrics", async () => {
    const text = await scrape();
    expect(await run("promtool", ["check", "metrics"], text), text.slice(0, 2000)).toEqual({ code: 0, output: "" });
  });

  it("has alert rules promtool accepts and a Grafana dashboard whose every query Prometheus accepts", async () => {
    const operating = await readFile("docs/operating.md", "utf8");
    const rules = /```yaml\n(groups:[\s\S]*?)```/.exec(operating)![1];
    const file = path.join(workdir, "rules.yml");
    await writeFile(file, rules);
    const checked = await run("promtool", ["check", "rules", file]);
    expect(checked.code, checked.output).toBe(0);
    expect(checked.output).toContain("SUCCESS: 6 rules found");

    const dashboard = JSON.parse(await readFile("docs/grafana-dashboard.json", "utf8"));
    const queries: string[] = dashboard.panels.flatMap((panel: { targets: { expr: string }[] }) =>
      panel.targets.map((t) => t.expr),
    );
    expect(queries.length).toBeGreaterThan(10);
    for (const expr of queries) {
      const promql = expr.replaceAll("$__rate_interval", "1m");
      const answer = await (await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`)).json();
      expect(answer.status, promql).toBe("success");
    }
  });

  it("serves no metrics on the application's port", async () => {
    const res = await sendOnOwnSocket(new URL("/metrics", server.baseUrl), "GET");
    expect(res.status).toBe(404);
    expect(res.text).not.toContain("http_server_request_duration");
  });

  it("keeps the number of series bounded whatever paths, methods, headers and query strings clients send", async () => {
    const fuzz = async () => {
      const token = () => randomBytes(6).toString("hex");
      const paths = () => [
        `/api/${token()}`,
        `/api/leads/${token()}`,
        `/api/leads/sources/${token()}/x`,
        `/api/leads?referrer=${token()}&${token()}=1`,
        `/api/leads/agents?${token()}`,
      ];
      const methods = [
        "GET",
        "POST",
        "PUT",
        "DELETE",
        "PATCH",
        "OPTIONS",
        "HEAD",
        `X${token().toUpperCase()}`,
        "PROPFIND",
      ];
      const answers = [];
      for (const p of paths()) {
        for (const method of methods) {
          const headers = {
            authorization: `Bearer ${TEST_KEY}`,
            "x-request-id": token(),
            "x-lead-intake-method": `M${token()}`,
            [`x-${token()}`]: token(),
            "user-agent": token(),
          };
          answers.push((await sendOnOwnSocket(new URL(p, server.baseUrl), method, headers)).status);
        }
      }
      expect(answers).not.toHaveLength(0);
      expect(answers.every((status) => status < 500)).toBe(true);
      return answers.length;
    };
    const series = async () => {
      // Observed after the scrape that follows the requests (the SDK aggregates at each collection).
      const text = await scrape();
      return seriesOf(text, "http_server_request_duration_seconds_count");
    };
    expect(await fuzz()).toBe(45);
    const first = await series();
    expect(await fuzz()).toBe(45);
    const second = await series();
    expect(second.length).toBe(first.length);
    const text = await scrape();
    for (const route of labelValues(text, "http_route")) expect([...ROUTES, OTHER_ROUTE]).toContain(route);
    for (const method of labelValues(text, "http_request_method"))
      expect(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "_OTHER"]).toContain(method);
    expect(first.length).toBeLessThan(60);
  });

  it("exports the same counts over OTLP/HTTP", async () => {
    const deadline = Date.now() + 15_000;
    let count: number | undefined;
    while (Date.now() < deadline) {
      count = createdCountIn(receiver.bodies.at(-1));
      if (count === 5) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(count).toBe(5);
    expect(receiver.bodies.join("")).not.toContain(TEST_KEY);
  });
});

interface Point {
  attributes: { key: string; value: Record<string, unknown> }[];
  count?: string | number;
}

/** The count of POST /api/leads answered 201 in an OTLP/JSON export (cumulative, so the latest export has it all). */
function createdCountIn(body: string | undefined): number | undefined {
  if (!body) return undefined;
  for (const resource of JSON.parse(body).resourceMetrics ?? []) {
    for (const scope of resource.scopeMetrics ?? []) {
      for (const metric of scope.metrics ?? []) {
        if (metric.name !== "http.server.request.duration") continue;
        const point = (metric.histogram.dataPoints as Point[]).find((p) => {
          const attribute = (key: string) => Object.values(p.attributes.find((a) => a.key === key)?.value ?? {})[0];
          return (
            attribute("http.route") === "/api/leads" &&
            attribute("http.request.method") === "POST" &&
            Number(attribute("http.response.status_code")) === 201
          );
        });
        if (point) return Number(point.count);
      }
    }
  }
  return undefined;
}
