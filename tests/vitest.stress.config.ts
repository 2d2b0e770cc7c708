import { defineConfig } from "vitest/config";
import base from "./vitest.config";

/**
 * The long tests (`npm run test:stress`): concurrency across two server
 * processes and across three behind HAProxy on PgBouncer, paging under load,
 * kill -9 under load, and a soak. One file at a time, so that each
 * has the machine to itself and its throughput and memory figures mean something.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["tests/*/**/*.stress.ts"],
    fileParallelism: false,
    testTimeout: 60 * 60_000,
    hookTimeout: 300_000,
  },
});
