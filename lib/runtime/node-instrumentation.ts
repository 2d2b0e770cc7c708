/**
 * The start-up hook's work, in the Node.js runtime only: instrumentation.ts imports this module under its
 * NEXT_RUNTIME check, so the Edge compilation of the hook drops it with the Node.js APIs it uses (process.exit).
 * A missing key or one under the minimum length (lib/api/api-key.mjs) is said in one sentence: the data operations then
 * answer 503 API_NOT_CONFIGURED (lib/api/auth.ts) while the host's own pages keep serving. A numeric setting that is
 * not a number in its range (lib/settings.mjs) stops the process with one sentence, as the launcher does: the server
 * never runs on a NaN; so does a rate limit or metrics port that cannot be read (lib/api/rate-limit.ts,
 * lib/metrics.ts). The metrics SDK is loaded only when metrics are configured (LEADS_METRICS_PORT,
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT). Then tracing, when configured, so the start-up
 * work is traced too; then the start-up work itself (migrations and configured sources, lib/startup/service.ts), so a
 * host running its own `next start` needs no separate step. The OpenTelemetry SDK is loaded only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
export async function registerNode(): Promise<void> {
  const keyProblem = (await import("@/lib/api/api-key.mjs")).unusableKeyProblem(process.env);
  if (keyProblem) console.error(JSON.stringify({ level: "error", msg: keyProblem }));
  const problem = (await import("@/lib/settings.mjs")).numericSettingsProblem(process.env);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
  try {
    (await import("@/lib/api/rate-limit")).rateLimitsOf(process.env);
    const { LEADS_METRICS_PORT, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT } = process.env;
    if (LEADS_METRICS_PORT || OTEL_EXPORTER_OTLP_ENDPOINT || OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) {
      await (await import("@/lib/metrics")).registerMetrics();
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) (await import("@/lib/tracing")).registerTracing();
  // Not awaited: Next serves (liveness first) while it runs; data requests and readiness wait for it.
  void (await import("@/lib/startup/service")).startService();
}
