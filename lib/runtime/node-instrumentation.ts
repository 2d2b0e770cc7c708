import { logLine } from "@/lib/log-line.mjs";

/**
 * The start-up hook's work, in the Node.js runtime only: instrumentation.ts imports this module under its
 * NEXT_RUNTIME check, so the Edge compilation of the hook drops it with the Node.js APIs it uses.
 * Inside a host's own `next start` the module never stops the host: a missing or short key (lib/api/api-key.mjs), or
 * a setting it cannot read (lib/settings.mjs: a numeric setting out of its range, a rate limit, the metrics port), is
 * said in one sentence, and the data operations then answer 503 API_NOT_CONFIGURED (lib/api/auth.ts) while the host's
 * own pages keep serving; with an unreadable setting nothing more of the module starts. (The launcher refuses both
 * before it starts anything.) The metrics SDK is loaded only when metrics are configured (LEADS_METRICS_PORT,
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT). Then tracing, when configured, so the start-up
 * work is traced too; then the start-up work itself (migrations and configured sources, lib/startup/service.ts), so a
 * host running its own `next start` needs no separate step. The OpenTelemetry SDK is loaded only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
export async function registerNode(): Promise<void> {
  const keyProblem = (await import("@/lib/api/api-key.mjs")).unusableKeyProblem(process.env);
  if (keyProblem) logLine("error", keyProblem);
  const settings = await import("@/lib/settings.mjs");
  const problem = settings.settingsProblem(process.env);
  if (problem) {
    settings.refuseDataOperations();
    logLine("error", settings.untilConfigured(problem));
    return;
  }
  const { LEADS_METRICS_PORT, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT } = process.env;
  if (LEADS_METRICS_PORT || OTEL_EXPORTER_OTLP_ENDPOINT || OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) {
    await startOptional("metrics", async () => (await import("@/lib/metrics")).registerMetrics());
  }
  if (OTEL_EXPORTER_OTLP_ENDPOINT)
    await startOptional("tracing", async () => (await import("@/lib/tracing")).registerTracing());
  // Not awaited: Next serves (liveness first) while it runs; data requests and readiness wait for it.
  void (await import("@/lib/startup/service")).startService();
}

/** Metrics and tracing that fail to start are said in one line: the module and its host serve on without them. */
async function startOptional(feature: string, start: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (error) {
    logLine("error", `${feature} not started: ${error instanceof Error ? error.message : String(error)}`);
  }
}
