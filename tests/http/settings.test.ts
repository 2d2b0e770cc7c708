import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { numericSettingsProblem } from "@/lib/settings.mjs";

/**
 * Every numeric setting (lib/settings.mjs) is checked before the launcher starts anything: a value that is not a
 * whole number in its range stops it with one sentence naming the variable, instead of a NaN pool or port.
 */
const WRONG: Record<string, string>[] = [
  { DATABASE_POOL_SIZE: "abc" },
  { DATABASE_POOL_SIZE: "0" },
  { DATABASE_READ_CONNECTIONS: "1.5" },
  { PORT: "70000" },
  { EMBEDDED_PG_PORT: "-1" },
  { LEADS_MIGRATION_LOCK_TIMEOUT: "1e3" },
];

describe("the launcher with a numeric setting that is not a number in its range", () => {
  it.each(WRONG)("refuses %o in one sentence before starting anything", (wrong) => {
    const run = spawnSync(process.execPath, ["lib/runtime/start.mjs", "--no-build"], {
      env: { ...process.env, DATABASE_URL: "postgresql://unused@127.0.0.1:1/unused", ...wrong },
      encoding: "utf8",
      timeout: 60_000,
    });
    const sentence = numericSettingsProblem(wrong);
    expect(sentence).toMatch(new RegExp(`^${Object.keys(wrong)[0]} is ".*", not a whole number from \\d+ to \\d+; `));
    expect(run.status).toBe(1);
    expect(`${run.stdout}${run.stderr}`.trim()).toBe(sentence);
  });
});
