// The version of a package a host runs on: the one installed where Node resolves it from the package's folder, else
// the one its lockfile pins, and the floor of package.json's range only where neither is there. A range's floor is
// often older than what is installed (create-t3-app's `"zod": "^3.24.2"` installs 3.25.x).
import path from "node:path";
import { Refusal, refuse, type HostFolder } from "./host-folder";

export interface Version {
  major: number;
  minor: number;
}

const versionIn = (text: string | undefined): Version | undefined => {
  const match = text === undefined ? null : /^\s*v?(\d+)\.(\d+)/.exec(text);
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : undefined;
};

/**
 * The version of `name` for the package in `folder` ("" for the app, or `../../packages/db/` in a workspace), whose
 * package.json ranges are `ranges`; undefined where the package does not list it.
 */
export function installedVersion(
  host: HostFolder,
  folder: string,
  ranges: Record<string, string>,
  name: string,
): Version | undefined {
  return resolvedVersion(host, folder, ranges, name) ?? rangeFloor(ranges, name);
}

/** The version of `name` installed or locked only; undefined where the package does not list it or neither tells. */
export function resolvedVersion(
  host: HostFolder,
  folder: string,
  ranges: Record<string, string>,
  name: string,
): Version | undefined {
  if (ranges[name] === undefined) return undefined;
  return fromNodeModules(host, folder, name) ?? fromLockfile(host, folder, name);
}

/** The lowest version package.json's range of `name` allows; undefined where it does not list it. */
export function rangeFloor(ranges: Record<string, string>, name: string): Version | undefined {
  const range = ranges[name];
  if (range === undefined) return undefined;
  const floor = /(\d+)(?:\.(\d+))?/.exec(range);
  if (!floor) refuse(`package.json's ${name} is "${range}"; the install needs a version range to tell its major`);
  return { major: Number(floor[1]), minor: Number(floor[2] ?? 0) };
}

/** The folders from the package's own up to the host's boundary, as paths from the app folder ("", "../.."). */
function foldersUp(host: HostFolder, folder: string): string[] {
  const folders: string[] = [];
  for (let dir = path.resolve(host.root, folder || "."); ; dir = path.dirname(dir)) {
    folders.push(path.relative(host.root, dir).split(path.sep).join("/"));
    if (dir === host.boundary || path.dirname(dir) === dir) return folders;
  }
}

const under = (folder: string, file: string) => (folder ? `${folder}/${file}` : file);

/** node_modules/<name>/package.json, looked for as Node looks for it, within the host's folder. */
function fromNodeModules(host: HostFolder, folder: string, name: string): Version | undefined {
  for (const dir of foldersUp(host, folder)) {
    let text: string | undefined;
    try {
      text = host.readText(under(dir, `node_modules/${name}/package.json`));
    } catch (error) {
      // A package linked from outside the host's folder is not read; its lockfile still tells.
      if (error instanceof Refusal) continue;
      throw error;
    }
    if (text === undefined) continue;
    try {
      const version = versionIn((JSON.parse(text) as { version?: unknown }).version as string);
      if (version) return version;
    } catch {
      // An unreadable package.json tells nothing; the lockfile may.
    }
  }
  return undefined;
}

/** The version the workspace root's package-lock.json or pnpm-lock.yaml gives the package in `folder`. */
function fromLockfile(host: HostFolder, folder: string, name: string): Version | undefined {
  const root = host.toBoundary;
  const importer = path
    .relative(host.boundary, path.resolve(host.root, folder || "."))
    .split(path.sep)
    .join("/");
  const npm = host.readText(`${root}package-lock.json`);
  if (npm !== undefined) {
    let lock: { packages?: Record<string, { version?: string }>; dependencies?: Record<string, { version?: string }> };
    try {
      lock = JSON.parse(npm) as typeof lock;
    } catch {
      return undefined;
    }
    const parts = importer ? importer.split("/") : [];
    for (let depth = parts.length; depth >= 0; depth--) {
      const key = under(parts.slice(0, depth).join("/"), `node_modules/${name}`);
      const version = versionIn(lock.packages?.[key]?.version);
      if (version) return version;
    }
    return versionIn(lock.dependencies?.[name]?.version);
  }
  const pnpm = host.readText(`${root}pnpm-lock.yaml`);
  return pnpm === undefined ? undefined : versionIn(pnpmLocked(pnpm, importer || ".", name));
}

/**
 * The version pnpm-lock.yaml gives `name` among an importer's dependencies: `importers: <importer>: dependencies:
 * <name>: version: x` (lockfile 6 and 9), `<name>: x` (5), or at the top level where there are no importers.
 */
export function pnpmLocked(text: string, importer: string, name: string): string | undefined {
  const lines = text.split(/\r?\n/);
  const depthOf = (line: string) => line.length - line.trimStart().length;
  const keyOf = (line: string) => /^['"]?([^'"]+?)['"]?:\s*(.*)$/.exec(line.trim());
  let start = 0;
  let indent = 0;
  const importers = lines.indexOf("importers:");
  if (importers >= 0) {
    const at = lines.findIndex((line, i) => i > importers && depthOf(line) === 2 && keyOf(line)?.[1] === importer);
    if (at < 0) return undefined;
    start = at + 1;
    indent = 4;
  }
  let inDependencies = false;
  for (let i = start; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    const depth = depthOf(lines[i]);
    if (depth < indent) return undefined;
    const key = keyOf(lines[i]);
    if (depth === indent) inDependencies = /^(dev|optional)?[dD]ependencies$/.test(key?.[1] ?? "");
    if (!inDependencies || depth !== indent + 2 || key?.[1] !== name) continue;
    if (key[2]) return key[2].replace(/^['"]|['"]$/g, "");
    for (let j = i + 1; j < lines.length && depthOf(lines[j]) > depth; j++) {
      const field = keyOf(lines[j]);
      if (field?.[1] === "version") return field[2].replace(/^['"]|['"]$/g, "");
    }
    return undefined;
  }
  return undefined;
}
