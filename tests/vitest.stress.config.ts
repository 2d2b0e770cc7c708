import { defineConfig } from "vitest/config";
import base from "./vitest.config";

/**
 * The long tests (`npm run test:stress`): concurrency across two server
 * processes and across three behind HAProxy on PgBouncer, paging under load,
 * kill -9 under load, and a soak. One file at a time, so that each
 * has the machine to itself and its throughput and memory figures mean something.
 */
// The base config's projects would each take these files too, some without PostgreSQL: one set of tests here.
const { projects: _projects, ...shared } = base.test ?? {};

export default defineConfig({
  ...base,
  test: {
    ...shared,
    include: ["tests/*/**/*.stress.ts"],
    globalSetup: ["tests/setup/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 60 * 60_000,
    hookTimeout: 300_000,
  },
});
