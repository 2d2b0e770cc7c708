import type { Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { PrismaInstrumentation } from "@prisma/instrumentation";
import { registerOTel } from "@vercel/otel";
import { withoutKeys } from "@/lib/api/log";

/**
 * OpenTelemetry for the server process (docs/operating.md, "Tracing"): Next's request spans with Prisma's query spans
 * below them, exported over OTLP. Prisma's spans carry SQL with placeholders, never values.
 */
export function registerTracing(): void {
  registerOTel({
    serviceName: process.env.OTEL_SERVICE_NAME ?? "lead-intake-service",
    instrumentations: [new PrismaInstrumentation()],
    spanProcessors: ["auto", new WithoutQueryString()],
  });
}

/**
 * Next puts the request target, query string included, on its request span; a query
 * string may hold a misplaced key, so spans keep only the path, and a path segment holding a key is redacted (as the
 * access log does).
 */
class WithoutQueryString implements SpanProcessor {
  onStart(span: Span): void {
    const target = span.attributes["http.target"];
    if (typeof target !== "string") return;
    const query = target.indexOf("?");
    const path = withoutKeys(query >= 0 ? target.slice(0, query) : target);
    if (path !== target) span.setAttribute("http.target", path);
  }

  onEnd(): void {
    // The target is rewritten when the span starts; nothing is left to do at its end.
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
