/**
 * Next.js runs register() once per server process before it serves any request
 * (https://nextjs.org/docs/app/guides/instrumentation): tracing first, when configured,
 * so the start-up work is traced too; then the start-up work itself (migrations and
 * configured sources, lib/startup/service.ts), so a host running its own `next start`
 * needs no separate step. Modules are loaded only in the Node.js runtime, and the
 * OpenTelemetry SDK only when OTEL_EXPORTER_OTLP_ENDPOINT is set. Before all of it, a key
 * under the minimum length (lib/runtime/api-key.mjs) stops the process with one sentence,
 * as the launcher does: the server never serves with a guessable key; so does a rate limit or metrics port that
 * cannot be read (lib/api/rate-limit.ts, lib/metrics.ts). The metrics SDK, too, is loaded only when metrics are
 * configured (LEADS_METRICS_PORT, OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const keyProblem = (await import("@/lib/runtime/api-key.mjs")).shortKeyProblem(process.env);
  if (keyProblem) {
    console.error(keyProblem);
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
  await (await import("@/lib/startup/service")).startService();
}
