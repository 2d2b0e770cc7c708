import { PrismaInstrumentation } from "@prisma/instrumentation";
import { registerOTel } from "@vercel/otel";

/**
 * OpenTelemetry for the server process (README, "Tracing"): Next's own request and
 * route spans, with Prisma's query spans below them, exported over OTLP/HTTP to
 * OTEL_EXPORTER_OTLP_ENDPOINT (OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf or
 * http/json). An incoming W3C `traceparent` continues the caller's trace. The wrapper
 * adds the request id and error code to the route span (lib/api/route.ts); Prisma's
 * spans carry SQL with placeholders, never values.
 */
export function registerTracing(): void {
  registerOTel({
    serviceName: process.env.OTEL_SERVICE_NAME ?? "lead-intake-service",
    instrumentations: [new PrismaInstrumentation()],
  });
}
