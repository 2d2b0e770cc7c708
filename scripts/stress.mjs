// `npm run test:stress`: runs the long tests (tests/<feature>/*.stress.ts) with
// vitest, then prints one summary line, exactly "N passed, N failed". Extra
// arguments go to vitest (a file filter, -t …). Exits non-zero on any failure.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const report = path.join(tmpdir(), `lead-intake-stress-${process.pid}.json`);
const vitest = spawnSync(
  "npx",
  [
    "vitest",
    "run",
    "--config",
    "tests/vitest.stress.config.ts",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { stdio: "inherit" },
);

let passed = 0;
let failed = 0;
if (existsSync(report)) {
  const results = JSON.parse(readFileSync(report, "utf8"));
  passed = results.numPassedTests;
  failed = results.numFailedTests;
  // A file that fails before its tests run (a hook, an import) fails no test but is still a failure.
  /** @type {{ status: string, assertionResults: { status: string }[] }[]} */
  const files = results.testResults;
  failed += files.filter(
    (file) => file.status === "failed" && file.assertionResults.every((t) => t.status !== "failed"),
  ).length;
  rmSync(report, { force: true });
} else {
  failed = 1; // vitest itself did not run to the end
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || vitest.status !== 0 ? 1 : 0);
