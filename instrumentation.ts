/**
 * Next.js runs register() once per server process before it serves any request
 * (https://nextjs.org/docs/app/guides/instrumentation): tracing first, when configured,
 * so the start-up work is traced too; then the start-up work itself (migrations and
 * configured sources, lib/startup/service.ts), so a host running its own `next start`
 * needs no separate step. Modules are loaded only in the Node.js runtime, and the
 * OpenTelemetry SDK only when OTEL_EXPORTER_OTLP_ENDPOINT is set. Before all of it, a key
 * under the minimum length (lib/runtime/api-key.mjs) or a numeric setting that is not a
 * number in its range (lib/settings.mjs) stops the process with one sentence, as the
 * launcher does: the server never serves with a guessable key or a NaN.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const problem =
    (await import("@/lib/runtime/api-key.mjs")).shortKeyProblem(process.env) ??
    (await import("@/lib/settings.mjs")).numericSettingsProblem(process.env);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) (await import("@/lib/tracing")).registerTracing();
  // Not awaited: Next serves (liveness first) while it runs; data requests and readiness wait for it.
  void (await import("@/lib/startup/service")).startService();
}
