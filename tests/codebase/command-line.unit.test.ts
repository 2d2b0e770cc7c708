import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { USAGE_EXIT } from "@/scripts/host/check/command-line";
import { ROOT, sourceFiles } from "@/tests/helpers/source-files";

/** Every command of the project: the scripts run by `npm run` or `npx tsx`, the importer and the bench. */
const COMMANDS = [
  "scripts/client-types.ts",
  "scripts/environment.ts",
  "scripts/import.ts",
  "scripts/migration-checksums.ts",
  "scripts/seed.ts",
  "scripts/source-key.ts",
  "scripts/host/install.ts",
  "scripts/host/uninstall.ts",
  "scripts/host/check/check.ts",
  "bench/run.ts",
];

const TSX = path.join(ROOT, "node_modules/.bin/tsx");

async function run(script: string, args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(TSX, [script, ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: "" },
      timeout: 120_000,
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { status: code, stdout, stderr };
  }
}

/** What a command would write were it to run: the files it generates, which --help must leave as they were. */
const WATCHED = ["README.md", "docs/host-guide.md", "lib/client/openapi.ts", "prisma/migrations/checksums.json"];
const modified = () => WATCHED.map((file) => statSync(path.join(ROOT, file)).mtimeMs);

describe("command-line arguments", () => {
  it("every script reads its arguments with node:util's parseArgs, through one helper", () => {
    const readers = sourceFiles(["scripts", "bench/run.ts"], /\.ts$/).filter((file) =>
      /process\.argv(\[[2-9]\]|\.slice\(2\)|\.indexOf|\.includes)/.test(readFileSync(path.join(ROOT, file), "utf8")),
    );
    expect(readers).toEqual(["scripts/host/check/command-line.ts"]);
  });

  it.each(COMMANDS)(
    "%s --help prints its usage, exit 0, and does nothing else",
    async (script) => {
      const before = modified();
      const { status, stdout, stderr } = await run(script, ["--help"]);
      expect({ status, stderr }).toEqual({ status: 0, stderr: "" });
      expect(stdout).toMatch(/^Usage: (npm run|npx tsx) \S+/);
      expect(modified()).toEqual(before);
    },
    120_000,
  );

  it.each(["scripts/host/install.ts", "scripts/environment.ts"])(
    "%s refuses an option it does not take, with the usage, before doing anything",
    async (script) => {
      const before = modified();
      const { status, stdout, stderr } = await run(script, ["--no-such-option"]);
      expect(status).toBe(USAGE_EXIT);
      expect(stdout).toBe("");
      expect(stderr).toMatch(/^Unknown option '--no-such-option'[^\n]*\n\nUsage: /);
      expect(modified()).toEqual(before);
    },
    120_000,
  );

  it("host:install with no folder says what it takes", async () => {
    const { status, stderr } = await run("scripts/host/install.ts", []);
    expect(status).toBe(USAGE_EXIT);
    expect(stderr).toMatch(
      /^Expected 1 argument besides the options; got 0\.\n\nUsage: npm run host:install -- <host-dir>/,
    );
  }, 120_000);
});
