import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";

/** `host:install` and `host:uninstall` run as a host developer runs them, on real folders. */
export const ROOT = path.resolve(import.meta.dirname, "../..");
export const FIXTURE = path.join(ROOT, "tests/fixtures/host-app");

/** A temporary folder holding `host` (a copy of a fixture host, the app's) and `outside`, a folder beside it. */
export function hostCopy(fixture = FIXTURE): { parent: string; host: string; outside: string } {
  const parent = mkdtempSync(path.join(tmpdir(), "lead-intake-host-"));
  const host = path.join(parent, "host");
  cpSync(fixture, host, { recursive: true });
  return { parent, host, outside: path.join(parent, "outside") };
}

/**
 * Runs scripts/host/<script>.ts of this checkout, or of the module's copy at `moduleRoot`; a hang (a FIFO opened for
 * reading) fails on the timeout rather than the test's.
 */
export function runHostScript(
  script: "install" | "uninstall",
  args: string[],
  env: Record<string, string> = {},
  moduleRoot = ROOT,
) {
  const result = spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), [`scripts/host/${script}.ts`, ...args], {
    cwd: moduleRoot,
    env: { ...process.env, INIT_CWD: moduleRoot, ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The printed steps after an install, in a host copy: this checkout's packages linked in, and the host's Prisma client
 * generated. Returns the environment the host's commands then run with.
 */
export function generateHostClient(host: string, databaseUrl: string): NodeJS.ProcessEnv {
  symlinkSync(path.join(ROOT, "node_modules"), path.join(host, "node_modules"));
  const env = { ...process.env, DATABASE_URL: databaseUrl, PRISMA_SCHEMA_ENGINE_BINARY: "package.json" };
  const generated = spawnSync(path.join(ROOT, "node_modules/.bin/prisma"), ["generate"], {
    cwd: host,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(generated.status, generated.stderr).toBe(0);
  return env;
}

/**
 * Everything under a folder, links not followed: each file with its SHA-256, each link with its target, each
 * folder and other kind of file by its kind (node_modules, .next and a generated client left out).
 */
export function snapshot(dir: string): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (relative: string) => {
    for (const name of readdirSync(path.join(dir, relative)).sort()) {
      const child = relative ? `${relative}/${name}` : name;
      if (["node_modules", ".next", "app/generated"].includes(child)) continue;
      const full = path.join(dir, child);
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) entries.set(child, `link ${readlinkSync(full)}`);
      else if (stat.isDirectory()) {
        entries.set(child, "folder");
        walk(child);
      } else if (stat.isFile()) entries.set(child, createHash("sha256").update(readFileSync(full)).digest("hex"));
      else entries.set(child, "other");
    }
  };
  walk("");
  return entries;
}

/** Only the files of a snapshot (a folder left empty is not a difference a host sees in its version control). */
export const filesOf = (tree: Map<string, string>) => new Map([...tree].filter(([, kind]) => kind !== "folder"));

/**
 * Runs a host script that must refuse: one line, no stack, exit 1, and every folder of `unchanged` (the host, and what
 * lies outside it) byte for byte as before. Returns what it printed.
 */
export function expectRefused(
  unchanged: string[],
  script: "install" | "uninstall",
  args: string[],
  sentence: string | RegExp,
): string {
  const before = unchanged.map((dir) => snapshot(dir));
  const result = runHostScript(script, args, { DATABASE_URL: "" });
  const output = `${result.stdout}${result.stderr}`;
  expect({ status: result.status, lines: output.trim().split("\n").length }).toEqual({ status: 1, lines: 1 });
  expect(output).not.toMatch(/\n\s+at /);
  expect(output).toMatch(/; nothing was changed\.\n$/);
  if (typeof sentence === "string") expect(output).toContain(sentence);
  else expect(output).toMatch(sentence);
  expect(unchanged.map((dir) => snapshot(dir))).toEqual(before);
  return output;
}
