import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ESLint } from "eslint";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "@/tests/helpers/source-files";

/**
 * `npm run lint` skips what git ignores: a packed client's lib/client/dist/, a build, an import's ledger beside its
 * input. Each .gitignore pattern gives paths it covers: a `*` read as one name, and a name read as a file or a folder.
 */
const PATTERNS = readFileSync(path.join(ROOT, ".gitignore"), "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith("#") && !line.startsWith("!"));

/** The paths a pattern covers, as a file and as a folder holding a source file (two lists: a name is one or other). */
function covered(pattern: string): [string[], string[]] {
  const name = pattern.replace(/^\//, "").replaceAll("*", "x");
  const anyDepth = !pattern.slice(0, -1).includes("/");
  const names = anyDepth ? [name, `lib/${name}`] : [name];
  return name.endsWith("/") ? [names.map((folder) => `${folder}x.ts`), []] : [names, names.map((n) => `${n}/x.ts`)];
}

const AS_FILES = PATTERNS.flatMap((pattern) => covered(pattern)[0]);
const IN_FOLDERS = PATTERNS.flatMap((pattern) => covered(pattern)[1]);
/** A source file git keeps, which both tools must still read. */
const KEPT = "lib/client/kept.ts";
const UNFORMATTED = "export  const  x=1\n";

const copies: string[] = [];
afterAll(() => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The files `prettier --list-different .` names in a copy of the ignore files holding `files`, all unformatted. */
function prettierReads(files: string[]): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), "git-ignored-"));
  copies.push(dir);
  for (const config of [".gitignore", ".prettierignore", ".prettierrc.json"])
    writeFileSync(path.join(dir, config), readFileSync(path.join(ROOT, config)));
  for (const file of [...files, KEPT]) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), UNFORMATTED);
  }
  const bin = path.join(ROOT, "node_modules/.bin/prettier");
  const run = spawnSync(bin, ["--list-different", "."], { cwd: dir, encoding: "utf8" });
  return run.stdout.split("\n").filter(Boolean);
}

describe("what git ignores", () => {
  it("includes the packed client's build", () => {
    expect(AS_FILES).toContain("lib/client/dist/x.ts");
  });

  it("is not linted by ESLint", async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const linted = [];
    for (const file of [...AS_FILES, ...IN_FOLDERS]) if (!(await eslint.isPathIgnored(file))) linted.push(file);
    expect(linted).toEqual([]);
    expect(await eslint.isPathIgnored(KEPT)).toBe(false);
  });

  it("is not checked by Prettier", () => {
    expect(prettierReads(AS_FILES)).toEqual([KEPT]);
    expect(prettierReads(IN_FOLDERS)).toEqual([KEPT]);
  });
});
