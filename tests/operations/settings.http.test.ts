import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { settingsProblem } from "@/lib/settings.mjs";

/**
 * Every setting that can be mistyped (lib/settings.mjs) is checked before the launcher starts anything: a numeric
 * value that is not a whole number in its range, a rate limit or a metrics port that cannot be read stops it with one
 * sentence naming the variable, instead of a NaN pool or port. (A host's own `next start` serves on instead:
 * tests/host/own-next-start.http.test.ts.)
 */
const WRONG: Record<string, string>[] = [
  { DATABASE_POOL_SIZE: "abc" },
  { DATABASE_POOL_SIZE: "0" },
  { DATABASE_READ_CONNECTIONS: "1.5" },
  { PORT: "70000" },
  { EMBEDDED_PG_PORT: "-1" },
  { LEADS_MIGRATION_LOCK_TIMEOUT: "1e3" },
  { OTEL_METRIC_EXPORT_INTERVAL: "1e10" },
  { LEADS_RATE_LIMIT_CREATE: "lots" },
  { LEADS_RATE_LIMIT_READ: "10/fortnight" },
  { LEADS_METRICS_PORT: "http" },
  { LEADS_METRICS_PORT: "3456", PORT: "03456" },
];

describe("the launcher with a setting it cannot read", () => {
  it.each(WRONG)("refuses %o in one sentence before starting anything", (wrong) => {
    const run = spawnSync(process.execPath, ["lib/runtime/start.mjs", "--no-build"], {
      env: { ...process.env, DATABASE_URL: "postgresql://unused@127.0.0.1:1/unused", ...wrong },
      encoding: "utf8",
      timeout: 60_000,
    });
    const sentence = settingsProblem(wrong);
    expect(sentence).toMatch(new RegExp(`^${Object.keys(wrong)[0]} `));
    expect(run.status).toBe(1);
    expect(`${run.stdout}${run.stderr}`.trim()).toBe(sentence);
  });
});
