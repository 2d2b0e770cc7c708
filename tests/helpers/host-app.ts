import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";

/**
 * A host app as its developer runs it, for the tests that install the module into a fixture host
 * (tests/http/host-*.test.ts): its commands, its files, and its `next start`.
 */
export const ROOT = path.resolve(import.meta.dirname, "../..");

export function run(command: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}) {
  const environment = Object.fromEntries(
    Object.entries({ ...process.env, ...env }).filter(([, value]) => value !== undefined),
  ) as NodeJS.ProcessEnv;
  const result = spawnSync(command, args, { cwd, env: environment, encoding: "utf8", timeout: 600_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

export function mustRun(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): string {
  const { status, output } = run(command, args, cwd, env);
  if (status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${status}:\n${output.slice(-4000)}`);
  return output;
}

/** Every file under a folder with its SHA-256, but dependencies, build output and the `skipped` paths. */
export function tree(dir: string, skipped: string[] = []): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (relative: string) => {
    for (const name of readdirSync(path.join(dir, relative))) {
      const child = relative ? `${relative}/${name}` : name;
      if (["node_modules", ".next", ...skipped].includes(child)) continue;
      if (statSync(path.join(dir, child)).isDirectory()) walk(child);
      else
        files.set(
          child,
          createHash("sha256")
            .update(readFileSync(path.join(dir, child)))
            .digest("hex"),
        );
    }
  };
  walk("");
  return files;
}

/** The host's `next start` on a free port, with `env` (NODE_OPTIONS for the preload, the database, the key). */
export async function startHost(
  host: string,
  env: Record<string, string | undefined>,
): Promise<{ group: ProcessGroup; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const group = await startProcessGroup(
    process.execPath,
    ["node_modules/next/dist/bin/next", "start", "-p", String(port)],
    { LEADS_ACCESS_LOG: "on", ...env },
    `${url}/api/health/live`,
    { cwd: host },
  );
  return { group, url };
}

/**
 * A folder with a `pnpm` command (pnpm 9 through npx, as the guide's steps name it for a pnpm host), to put first
 * on PATH; the machine has no pnpm of its own.
 */
export function pnpmOnPath(parent: string): string {
  const bin = path.join(parent, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, "pnpm"), '#!/bin/sh\nexec npx -y pnpm@9.15.9 "$@"\n');
  chmodSync(path.join(bin, "pnpm"), 0o755);
  return `${bin}${path.delimiter}${process.env.PATH ?? ""}`;
}

/** The numbered steps the install printed under "Left to do:", without their numbers. */
export function leftToDo(installOutput: string): string[] {
  const lines = installOutput.split("\n");
  return lines
    .slice(lines.indexOf("Left to do:") + 1)
    .filter((line) => /^\d+\. /.test(line))
    .map((line) => line.replace(/^\d+\. /, ""));
}
