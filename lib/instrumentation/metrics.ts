import type { Attributes, ObservableResult } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { createServer } from "node:http";
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type IMetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import { observeWith } from "@/lib/db/observer";
import { poolStateOf } from "@/lib/db/prepared";
import { database } from "@/lib/db/prisma";
import { readBudgetOf } from "@/lib/db/read-budget";
import { metricsPortOf, numericSetting } from "@/lib/settings.mjs";
import { logLine } from "@/lib/log-line.mjs";

/** The semantic conventions' buckets for http.server.request.duration, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/**
 * The semantic conventions' pool metrics as of 1.24 (`db.client.connection.count` would end in `_count` in Prometheus).
 */
const POOL = { "pool.name": "lead-intake" };

/**
 * Metrics through OpenTelemetry (docs/operating.md, "Metrics"): a Prometheus endpoint on LEADS_METRICS_PORT and OTLP
 * export, each when configured. It registers the observer the request path reports to (lib/db/observer.ts).
 */
export async function registerMetrics(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const port = metricsPortOf(env);
  const readers: IMetricReader[] = [];
  if (port !== undefined) {
    const { PrometheusExporter, PrometheusSerializer } = await import("@opentelemetry/exporter-prometheus");
    const exporter = new PrometheusExporter({ preventServerStart: true });
    readers.push(exporter);
    serveScrapes(port, exporter, new PrometheusSerializer("", false));
  }
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) {
    const { OTLPMetricExporter } =
      env.OTEL_EXPORTER_OTLP_PROTOCOL === "http/json"
        ? await import("@opentelemetry/exporter-metrics-otlp-http")
        : await import("@opentelemetry/exporter-metrics-otlp-proto");
    const interval = numericSetting("OTEL_METRIC_EXPORT_INTERVAL", env);
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter(),
        exportIntervalMillis: interval,
        exportTimeoutMillis: Math.min(interval, 30_000),
      }),
    );
  }
  if (readers.length === 0) return;
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME ?? "lead-intake-service" }),
    readers,
  });
  const meter = provider.getMeter("lead-intake-service");

  const duration = meter.createHistogram("http.server.request.duration", {
    unit: "s",
    description: "Duration of API requests, by route template, method, status code and error code.",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const leads = meter.createCounter("lead_intake.leads.created", {
    unit: "{lead}",
    description: "Leads created, by the referrer's source type (ads, other, person) and whether its source is new.",
  });
  const poolTimeouts = meter.createCounter("db.client.connections.timeouts", {
    unit: "{timeout}",
    description: "Requests that failed waiting for a pool connection (pool-timeout).",
  });
  const readsBusy = meter.createCounter("lead_intake.reads.busy", {
    unit: "{request}",
    description: "Reads refused 503 READS_BUSY: every read connection stayed busy for the read wait.",
  });
  const rateLimited = meter.createCounter("lead_intake.rate_limited", {
    unit: "{request}",
    description: "Requests refused 429 RATE_LIMITED, by limited operation (create, read).",
  });
  const rateLimitUncounted = meter.createCounter("lead_intake.rate_limit.uncounted", {
    unit: "{request}",
    description:
      "Limited requests that passed uncounted (failing open): the limiter's storage failed or was locked past 200 ms.",
  });
  meter
    .createObservableUpDownCounter("db.client.connections.usage", {
      unit: "{connection}",
      description: "Pool connections, by state (used, idle).",
    })
    .addCallback((result) =>
      observePool(result, (pool) => [
        [pool.used, { ...POOL, state: "used" }],
        [pool.idle, { ...POOL, state: "idle" }],
      ]),
    );
  meter
    .createObservableUpDownCounter("db.client.connections.pending_requests", {
      unit: "{request}",
      description: "Queries waiting for a pool connection.",
    })
    .addCallback((result) => observePool(result, (pool) => [[pool.waiting, POOL]]));
  meter
    .createObservableUpDownCounter("lead_intake.reads.in_use", {
      unit: "{connection}",
      description: "Read connections held by GET operations (the read budget).",
    })
    .addCallback((result) => observeBudget(result, (budget) => budget.running));
  meter
    .createObservableUpDownCounter("lead_intake.reads.waiting", {
      unit: "{request}",
      description: "Reads waiting in line for a read connection.",
    })
    .addCallback((result) => observeBudget(result, (budget) => budget.waiting));

  const requestAttributes = (route: string, method: string, status: number, code: string | undefined): Attributes =>
    code === undefined
      ? { "http.route": route, "http.request.method": method, "http.response.status_code": status }
      : { "http.route": route, "http.request.method": method, "http.response.status_code": status, "error.type": code };
  observeWith({
    request: (route, method, status, code, seconds) =>
      duration.record(seconds, requestAttributes(route, method, status, code)),
    leadCreated: (sourceType, newSource) =>
      leads.add(1, { "lead_intake.source.type": sourceType, "lead_intake.source.new": newSource }),
    readsBusy: () => readsBusy.add(1),
    poolTimeout: () => poolTimeouts.add(1, POOL),
    rateLimited: (operation) => rateLimited.add(1, { "lead_intake.rate_limit.operation": operation }),
    rateLimitUncounted: (operation) => rateLimitUncounted.add(1, { "lead_intake.rate_limit.operation": operation }),
  });
}

/**
 * `/metrics` on its own port (all interfaces), as the exporter's own server would serve it, but with the names
 * OpenTelemetry's Prometheus mapping gives (withUnitSuffixes). A port already taken is said in one line.
 */
function serveScrapes(port: number, exporter: IMetricReader, serializer: { serialize(r: ResourceMetrics): string }) {
  const server = createServer((request, response) => {
    if (new URL(request.url ?? "/", "http://metrics").pathname !== "/metrics") {
      response.statusCode = 404;
      response.end();
      return;
    }
    exporter.collect().then(
      ({ resourceMetrics }) => {
        response.setHeader("Content-Type", "text/plain");
        response.end(serializer.serialize(withUnitSuffixes(resourceMetrics)));
      },
      () => {
        response.statusCode = 500;
        response.end();
      },
    );
  });
  server.unref();
  server.on("error", (error) => logLine("error", `metrics not served: ${error.message}`));
  server.listen(port);
}

/** Prometheus' names of OpenTelemetry's units (the instruments here use only `s` and annotations like `{request}`). */
const PROMETHEUS_UNITS: Record<string, string> = { s: "seconds" };

/**
 * OpenTelemetry's Prometheus mapping adds the unit to the name (`http.server.request.duration`, unit `s`:
 * `http_server_request_duration_seconds`); exporter-prometheus 0.207 leaves it out, so it is added here, for the
 * scrape only (OTLP keeps the instrument's own name and unit).
 */
function withUnitSuffixes(resourceMetrics: ResourceMetrics): ResourceMetrics {
  return {
    ...resourceMetrics,
    scopeMetrics: resourceMetrics.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.map((metric) => {
        const unit = PROMETHEUS_UNITS[metric.descriptor.unit];
        return unit
          ? { ...metric, descriptor: { ...metric.descriptor, name: `${metric.descriptor.name}_${unit}`, unit } }
          : metric;
      }),
    })),
  };
}

type PoolState = NonNullable<ReturnType<typeof poolStateOf>>;

function observePool(result: ObservableResult, values: (pool: PoolState) => [number, Attributes][]): void {
  const pool = poolStateOf(database());
  if (pool) for (const [value, attributes] of values(pool)) result.observe(value, attributes);
}

function observeBudget(
  result: ObservableResult,
  value: (budget: { running: number; waiting: number }) => number,
): void {
  const budget = readBudgetOf(database());
  if (budget) result.observe(value(budget.state));
}
