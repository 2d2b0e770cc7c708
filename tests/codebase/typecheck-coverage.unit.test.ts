import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * `npm run typecheck` (tsc over tsconfig.json, checkJs on) reads every source file of lib/, scripts/, app/ and bench/,
 * the .mjs runtime and the benchmark's .js included, with no hand-kept declaration file beside any of them.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const FOLDERS = ["lib", "scripts", "app", "bench"];
const SKIPPED = new Set(["node_modules", ".next", "dist"]);
const SOURCE = /\.(ts|tsx|mts|cts|mjs|cjs|js)$/;

function files(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder)).flatMap((name) => {
    const file = path.posix.join(folder, name);
    if (SKIPPED.has(name)) return [];
    return statSync(path.join(ROOT, file)).isDirectory() ? files(file) : SOURCE.test(name) ? [file] : [];
  });
}

describe("the type check", () => {
  const config = ts.readConfigFile(path.join(ROOT, "tsconfig.json"), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const checked = new Set(parsed.fileNames.map((file) => path.relative(ROOT, file).split(path.sep).join("/")));
  const sources = FOLDERS.flatMap(files);

  it("checks JavaScript files as strictly as TypeScript", () => {
    expect(parsed.options).toMatchObject({ allowJs: true, checkJs: true, strict: true });
  });

  it("covers every source file of lib/, scripts/, app/ and bench/", () => {
    expect(sources.filter((file) => file.endsWith(".mjs")).length).toBeGreaterThan(10);
    expect(sources.filter((file) => !checked.has(file))).toEqual([]);
  });

  it("has no declaration file written by hand: the .mjs files carry their types", () => {
    expect(sources.filter((file) => /\.d\.(ts|mts|cts)$/.test(file) && !file.startsWith("lib/generated/"))).toEqual([]);
  });
});
