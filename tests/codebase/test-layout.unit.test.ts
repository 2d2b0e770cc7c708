import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RUN_KINDS } from "../vitest.config";

/**
 * Tests are found by feature: tests/<feature>/<topic>.<run kind>, the run kind being what the vitest projects select
 * by (tests/vitest.config.ts) or `.stress.ts` for `npm run test:stress`. One topic per file, at most 400 lines.
 */

const root = path.resolve(import.meta.dirname, "../..");
/** Folders of tests/ that hold no tests. */
const SUPPORT = ["helpers", "fixtures", "setup"];
/** The files at the top of tests/. */
const CONFIGS = ["vitest.config.ts", "vitest.stress.config.ts"];
const SUFFIXES = [...Object.values(RUN_KINDS), "stress.ts"];
const MAX_LINES = 400;
/** Test files allowed over MAX_LINES, each with its reason. */
const LONG_FILES: Record<string, string> = {};

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(root, dir), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)])),
  );
  return nested.flat();
}

const testFiles = (await filesUnder("tests")).filter((file) => !SUPPORT.includes(file.split(path.sep)[1]));

describe("the tests' layout", () => {
  it("puts every test file in a feature folder, named for how it runs", () => {
    expect(testFiles.length).toBeGreaterThan(0);
    const misplaced = testFiles.filter((file) => {
      const parts = file.split(path.sep);
      if (parts.length === 2) return !CONFIGS.includes(parts[1]);
      return parts.length !== 3 || !SUFFIXES.some((suffix) => parts[2].endsWith(`.${suffix}`));
    });
    expect(misplaced, `expected tests/<feature>/<topic>.{${SUFFIXES.join(",")}}`).toEqual([]);
  });

  it(`keeps each test file to ${MAX_LINES} lines, unless it is a named exception`, async () => {
    const lines = await Promise.all(
      testFiles.map(
        async (file) => [file, (await readFile(path.join(root, file), "utf8")).split("\n").length] as const,
      ),
    );
    const long = lines
      .filter(([file, n]) => n > MAX_LINES && !(file in LONG_FILES))
      .map(([file, n]) => `${file}: ${n}`);
    expect(long).toEqual([]);
    // An exception names a file that is still long.
    for (const file of Object.keys(LONG_FILES)) expect(lines.find(([f]) => f === file)?.[1]).toBeGreaterThan(MAX_LINES);
  });
});
