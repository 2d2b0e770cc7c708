import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "../..");

/**
 * The long tests (`npm run test:stress`): concurrency across two server
 * processes, paging under load, and a soak. One file at a time, so that each
 * has the machine to itself and its throughput and memory figures mean something.
 */
export default defineConfig({
  root,
  resolve: {
    alias: {
      "@": root,
      "server-only": path.join(root, "tests/setup/server-only.ts"),
    },
  },
  test: {
    include: ["tests/stress/**/*.stress.ts"],
    globalSetup: ["tests/setup/global-setup.ts"],
    setupFiles: ["tests/setup/env.ts"],
    fileParallelism: false,
    testTimeout: 60 * 60_000,
    hookTimeout: 300_000,
  },
});
