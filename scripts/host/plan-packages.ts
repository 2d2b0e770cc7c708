import type { HostPackage } from "./host-package";
import { PRELOAD_FILE, preloadFor } from "./manifest";
import {
  CHECK_SCRIPT,
  moduleDependencies,
  moduleLock,
  NEXT_ENV,
  NEXT_START,
  PRISMA_COMPANIONS,
  startPreload,
} from "./module-adds";
import type { HostProject } from "./project-info";
import type { InstallRecord } from "./record";

/** The Prisma CLI and client, which belong to the package that generates the client. */
const PRISMA_PACKAGES = ["prisma", "@prisma/client"];

/**
 * The host's package.json with the packages the module uses, at exactly the versions of this project's lock, the
 * preload in its start script, and `host:check`. A package the host already lists keeps the host's range. A script
 * still as an earlier install wrote it (`recorded`) is written anew over the host's value from before that install.
 */
export function planPackages(hostPackage: HostPackage, project: HostProject, recorded: InstallRecord["scripts"]) {
  const lock = moduleLock();
  const json = structuredClone(hostPackage);
  const changes: string[] = [];
  const notes: string[] = [];
  const wanted = moduleDependencies();
  // The Prisma CLI and the client's runtime belong to the package that generates the client: a workspace's has them.
  if (project.schemaPackage) for (const name of PRISMA_PACKAGES) wanted.delete(name);
  const added: Record<string, string> = {};
  // A host on another Prisma major than the module's gets Prisma's packages at its own client's range.
  const moduleClient = lock.packages["node_modules/@prisma/client"]?.version ?? "";
  const hostClient = json.dependencies?.["@prisma/client"] ?? json.devDependencies?.["@prisma/client"];
  const prismaRange =
    hostClient && project.majors.prisma !== undefined && `${project.majors.prisma}` !== moduleClient.split(".")[0]
      ? hostClient
      : undefined;
  for (const [name, kind] of [...wanted].sort(([a], [b]) => a.localeCompare(b))) {
    const version =
      (PRISMA_COMPANIONS.has(name) ? prismaRange : undefined) ?? lock.packages[`node_modules/${name}`]?.version;
    if (!version) throw new Error(`${name} is not in this project's package-lock.json`);
    const has = json.dependencies?.[name] ?? json.devDependencies?.[name];
    if (has === undefined) {
      json[kind] = { ...json[kind], [name]: version };
      added[name] = version;
    } else if (has !== version) notes.push(`kept the host's ${name}@${has} (the module is tested with ${version})`);
  }
  // pnpm links only a package's own dependencies: host:check's @next/env is listed, at the host's next version.
  const nextEnv = NEXT_ENV;
  const nextRange = json.dependencies?.next;
  if (
    project.packageManager === "pnpm" &&
    nextRange &&
    !(json.dependencies?.[nextEnv] ?? json.devDependencies?.[nextEnv])
  ) {
    json.devDependencies = { ...json.devDependencies, [nextEnv]: nextRange };
    added[nextEnv] = nextRange;
  }
  for (const kind of ["dependencies", "devDependencies"] as const) {
    if (json[kind]) json[kind] = Object.fromEntries(Object.entries(json[kind]).sort(([a], [b]) => a.localeCompare(b)));
  }
  if (Object.keys(added).length)
    changes.push(
      `added ${Object.entries(added)
        .map(([name, version]) => `${name}@${version}`)
        .join(", ")}`,
    );
  const scripts = { ...json.scripts };
  const set: InstallRecord["scripts"] = {};
  const before = (name: string) => (name in recorded ? recorded[name]!.before : (scripts[name] ?? null));
  const earlier = recorded.start;
  const start = (earlier && earlier.after === scripts.start ? earlier.before : scripts.start) ?? "";
  const preload = startPreload(project.sourceRoot);
  if (!start.includes(`${project.sourceRoot}${PRELOAD_FILE}`)) {
    if (NEXT_START.test(start)) {
      const after = `${preload} ${start}`;
      if (scripts.start !== after) {
        set.start = { before: before("start"), after };
        changes.push(`start runs next start with the preload (${preload})`);
      }
    } else {
      notes.push(
        `the start script does not begin with "next start", so it was left alone: give next start ${preloadFor(project.sourceRoot)} ` +
          "yourself; without it requests are bounded by Node's defaults, not 30 s, and methods Next refuses get " +
          "its HTML 405, not the module's JSON",
      );
    }
  }
  if (scripts["host:check"] !== CHECK_SCRIPT) {
    set["host:check"] = { before: before("host:check"), after: CHECK_SCRIPT };
    changes.push(`script host:check`);
  }
  for (const [name, { after }] of Object.entries(set)) scripts[name] = after;
  json.scripts = scripts;
  return { json, changes, notes, added, scripts: set };
}
