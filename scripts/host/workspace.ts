// The host a developer names by its app's folder: on its own, or inside an npm or pnpm workspace (package.json's
// `workspaces`, pnpm-workspace.yaml's `packages`) whose root holds the lockfile and whose packages may hold the
// Prisma schema (docs/host-guide.md, "Host shapes").
import path from "node:path";
import { HostFolder, refuse, Refusal } from "./host-folder";
import { pnpmWorkspacePatterns } from "./pnpm-workspace";

/**
 * The app's folder, bounded by the root of the npm workspace that lists it where there is one, as npm finds it: the
 * nearest folder above with a package.json whose `workspaces` match the app's folder. That root is trusted only when
 * the user running the command owns it and its package.json and no one else can write them.
 */
export function openHost(folder: string): HostFolder {
  const app = new HostFolder(folder);
  for (let dir = path.dirname(app.root); ; dir = path.dirname(dir)) {
    const relative = path.relative(dir, app.root).split(path.sep).join("/");
    if (isMember(workspacePatterns(new HostFolder(dir, undefined, false)), relative)) {
      try {
        const workspace = new HostFolder(app.root, dir);
        workspace.exists(`${workspace.toBoundary}package.json`);
        return workspace;
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        refuse(`${path.join(dir, "package.json")} makes the app a package of its workspace, but ${error.message}`);
      }
    }
    if (path.dirname(dir) === dir) return app;
  }
}

/**
 * The `workspaces` of the package.json at the boundary of `folder`, or the `packages` of its pnpm-workspace.yaml;
 * none where it has none or they cannot be read.
 */
function workspacePatterns(folder: HostFolder): string[] {
  let json: unknown;
  let pnpm: string | undefined;
  try {
    json = JSON.parse(folder.readText(`${folder.toBoundary}package.json`) ?? "null");
    pnpm = folder.readText(`${folder.toBoundary}pnpm-workspace.yaml`);
  } catch (error) {
    // A folder above the app that is not a workspace's root is no concern of the install's.
    if (error instanceof Refusal || error instanceof SyntaxError) return [];
    throw error;
  }
  const workspaces = (json as { workspaces?: unknown } | null)?.workspaces;
  // npm's list, or the object form (`{ "packages": [...] }`) some workspace tools write.
  const listed = Array.isArray(workspaces) ? workspaces : (workspaces as { packages?: unknown } | undefined)?.packages;
  return [...(Array.isArray(listed) ? listed : []), ...(pnpm === undefined ? [] : pnpmWorkspacePatterns(pnpm))]
    .filter((p): p is string => typeof p === "string")
    .map((p) => p.replace(/^(!?)\.\//, "$1").replace(/\/$/, ""));
}

/** Whether a workspace pattern (folder names, `*` and `**` parts, as `apps/*`) names a folder. */
function matches(pattern: string, folder: string): boolean {
  const match = (parts: string[], names: string[]): boolean => {
    if (!parts.length) return !names.length;
    if (parts[0] === "**") return match(parts.slice(1), names) || (names.length > 0 && match(parts, names.slice(1)));
    return names.length > 0 && (parts[0] === "*" || parts[0] === names[0]) && match(parts.slice(1), names.slice(1));
  };
  return match(pattern.split("/"), folder.split("/"));
}

/** Whether the patterns take a folder in: one names it and no `!` pattern leaves it out. */
function isMember(patterns: string[], folder: string): boolean {
  const excluded = patterns.some((p) => p.startsWith("!") && matches(p.slice(1), folder));
  return !excluded && patterns.some((p) => !p.startsWith("!") && matches(p, folder));
}

/** The folders of the workspace's packages, relative to the app folder (`../../packages/db`). */
export function workspaceFolders(host: HostFolder): string[] {
  const folders: string[] = [];
  const expand = (done: string, rest: string[]) => {
    if (!rest.length) return void folders.push(done);
    const [part, ...more] = rest;
    const children = () =>
      host
        .list(`${done}/`)
        .folders.filter((n) => !n.startsWith(".") && n !== "node_modules")
        .sort();
    if (part === "**") {
      expand(done, more);
      for (const name of children()) expand(`${done}/${name}`, rest);
      return;
    }
    for (const name of part === "*" ? children() : [part]) expand(`${done}/${name}`, more);
  };
  const patterns = workspacePatterns(host);
  const root = host.toBoundary.replace(/\/$/, "");
  for (const pattern of patterns.filter((p) => !p.startsWith("!"))) expand(root, pattern.split("/"));
  const fromRoot = (folder: string) => folder.slice(root.length + 1);
  return [...new Set(folders)].filter((folder) => isMember(patterns, fromRoot(folder)));
}
