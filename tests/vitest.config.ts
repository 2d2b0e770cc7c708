import path from "node:path";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

const root = path.resolve(import.meta.dirname, "..");

/** Tests that need PostgreSQL (the global setup's throw-away cluster) and no build: `npm run test:db`. */
const DB_TESTS = ["tests/integration/**/*.test.ts", "tests/attack/fuzz.test.ts", "tests/attack/key.test.ts"];

/** A project of its own: `npm run test:<name>` runs it alone, `npm test` runs every project. */
function project(name: string, include: string[], exclude: string[], needsPostgres: boolean) {
  return {
    extends: true,
    test: {
      name,
      include,
      exclude,
      globalSetup: needsPostgres ? ["tests/setup/global-setup.ts"] : [],
      // Unit tests (no PostgreSQL) share their workers' loaded modules: loading zod and the document is half the loop.
      isolate: needsPostgres,
    },
  } satisfies TestProjectInlineConfiguration;
}

export default defineConfig({
  root,
  resolve: {
    alias: {
      "@": root,
      // The real package throws outside React Server Components; tests are server code too.
      "server-only": path.join(root, "tests/setup/server-only.ts"),
    },
  },
  test: {
    setupFiles: ["tests/setup/env.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      // No database, no build, no network.
      project("unit", ["tests/unit/**/*.test.ts"], [], false),
      project("db", DB_TESTS, [], true),
      // Everything else needs the production build too (npm run build): HTTP, attack and browser tests.
      project("build", ["tests/**/*.test.ts"], ["tests/unit/**", ...DB_TESTS], true),
    ],
  },
});
