/**
 * Next.js runs register() once per server process before it serves any request
 * (https://nextjs.org/docs/app/guides/instrumentation): tracing first, when configured,
 * so the start-up work is traced too; then the start-up work itself (migrations and
 * configured sources, lib/startup/service.ts), so a host running its own `next start`
 * needs no separate step. Modules are loaded only in the Node.js runtime, and the
 * OpenTelemetry SDK only when OTEL_EXPORTER_OTLP_ENDPOINT is set. Before all of it, a missing
 * key or one under the minimum length (lib/api/api-key.mjs) is said in one sentence: the
 * data operations then answer 503 API_NOT_CONFIGURED (lib/api/auth.ts) while the host's own
 * pages keep serving; the launcher refuses to start instead.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const keyProblem = (await import("@/lib/api/api-key.mjs")).unusableKeyProblem(process.env);
  if (keyProblem) console.error(JSON.stringify({ level: "error", msg: keyProblem }));
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) (await import("@/lib/tracing")).registerTracing();
  await (await import("@/lib/startup/service")).startService();
}
