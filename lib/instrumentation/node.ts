import { logLine } from "@/lib/log-line.mjs";

/**
 * The start-up hook's Node.js work, imported under instrumentation.ts's NEXT_RUNTIME check so the Edge build drops
 * it. In a host's own `next start` a key or setting problem is said once and the data operations answer 503, never
 * stopping the host (docs/decisions.md, "In a host, one Prisma client and a guest's key problem").
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
    await startOptional("metrics", async () => (await import("@/lib/instrumentation/metrics")).registerMetrics());
  }
  if (OTEL_EXPORTER_OTLP_ENDPOINT)
    await startOptional("tracing", async () => (await import("@/lib/instrumentation/tracing")).registerTracing());
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
