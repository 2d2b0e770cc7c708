// The host a developer names by its app's folder: on its own, or inside an npm workspace (package.json `workspaces`)
// whose root holds the lockfile and whose packages may hold the Prisma schema (docs/host-guide.md, "Host shapes").
import path from "node:path";
import { HostFolder, refuse, Refusal } from "./host-folder";

/**
 * The app's folder, bounded by the root of the npm workspace that lists it where there is one, as npm finds it: the
 * nearest folder above with a package.json whose `workspaces` match the app's folder. That root is trusted only when
 * the user running the command owns it and its package.json and no one else can write them.
 */
export function openHost(folder: string): HostFolder {
  const app = new HostFolder(folder);
  for (let dir = path.dirname(app.root); ; dir = path.dirname(dir)) {
    const relative = path.relative(dir, app.root).split(path.sep).join("/");
    if (workspacePatterns(new HostFolder(dir, undefined, false)).some((pattern) => matches(pattern, relative))) {
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

/** The `workspaces` of the package.json at the boundary of `folder`; none where it has none or cannot be read. */
function workspacePatterns(folder: HostFolder): string[] {
  let json: unknown;
  try {
    json = JSON.parse(folder.readText(`${folder.toBoundary}package.json`) ?? "null");
  } catch (error) {
    // A folder above the app that is not a workspace's root is no concern of the install's.
    if (error instanceof Refusal || error instanceof SyntaxError) return [];
    throw error;
  }
  const workspaces = (json as { workspaces?: unknown } | null)?.workspaces;
  return Array.isArray(workspaces)
    ? workspaces.filter((p): p is string => typeof p === "string").map((p) => p.replace(/^\.\//, "").replace(/\/$/, ""))
    : [];
}

/** Whether a workspace pattern (folder names and `*` parts, as `apps/*`) names a folder. */
function matches(pattern: string, folder: string): boolean {
  const parts = pattern.split("/");
  const names = folder.split("/");
  return parts.length === names.length && parts.every((part, i) => part === "*" || part === names[i]);
}

/** The folders of the workspace's packages, relative to the app folder (`../../packages/db`). */
export function workspaceFolders(host: HostFolder): string[] {
  const folders: string[] = [];
  const expand = (done: string, rest: string[]) => {
    if (!rest.length) return void folders.push(done);
    const [part, ...more] = rest;
    const names = part === "*" ? host.list(`${done}/`).folders.filter((n) => !n.startsWith(".")) : [part];
    for (const name of names.sort()) expand(`${done}/${name}`, more);
  };
  for (const pattern of workspacePatterns(host)) expand(host.toBoundary.replace(/\/$/, ""), pattern.split("/"));
  return folders;
}
