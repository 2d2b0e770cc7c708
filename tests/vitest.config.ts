import path from "node:path";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

const root = path.resolve(import.meta.dirname, "..");

/**
 * Tests live in one folder per feature (tests/<feature>/); the file name says how a test runs, and so which project
 * runs it: `*.unit.test.ts` needs nothing, `*.db.test.ts` PostgreSQL, `*.command.test.ts` runs the project's commands
 * (host:install, tsc, npm) as processes beside PostgreSQL, `*.http.test.ts` the production build too.
 * Long tests are `*.stress.ts` (tests/vitest.stress.config.ts). tests/codebase/test-layout.unit.test.ts holds the rule.
 */
export const RUN_KINDS = {
  unit: "unit.test.ts",
  db: "db.test.ts",
  command: "command.test.ts",
  build: "http.test.ts",
} as const;
const FILES = (kind: keyof typeof RUN_KINDS) => [`tests/*/**/*.${RUN_KINDS[kind]}`];

/** A project of its own: `npm run test:<name>` runs it alone, `npm test` runs every project. */
function project(name: keyof typeof RUN_KINDS, needsPostgres: boolean) {
  return {
    extends: true,
    test: {
      name,
      include: FILES(name),
      exclude: ["tests/fixtures/**"],
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
    // Each migration applied logs a line (docs/operating.md): eleven per database a test migrates, which buried the
    // failures in the log.
    onConsoleLog: (log) => !log.includes('"msg":"migration applied"'),
    projects: [
      // No database, no build, no network.
      project("unit", false),
      project("db", true),
      // Seconds per test: each starts the commands' processes, so they are a loop of their own.
      project("command", true),
      // The production build too (npm run build): HTTP, attack and browser tests.
      project("build", true),
    ],
  },
});
