/**
 * The start-up hook's work, in the Node.js runtime only: instrumentation.ts imports this module under its
 * NEXT_RUNTIME check, so the Edge compilation of the hook drops it with the Node.js APIs it uses (process.exit).
 * A key under the minimum length (lib/runtime/api-key.mjs) or a numeric setting that is not a number in its range
 * (lib/settings.mjs) stops the process with one sentence, as the launcher does: the server never serves with a
 * guessable key or a NaN. Then tracing, when configured, so the start-up work is traced too; then the start-up work
 * itself (migrations and configured sources, lib/startup/service.ts), so a host running its own `next start` needs no
 * separate step. The OpenTelemetry SDK is loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
export async function registerNode(): Promise<void> {
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
