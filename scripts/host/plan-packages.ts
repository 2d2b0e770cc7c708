import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";
import type { HostPackage } from "./host-package";
import { PRELOAD_FILE, preloadFor } from "./manifest";
import type { HostProject } from "./project-info";
import type { InstallRecord } from "./record";

/** The host's own packages (and what comes with Next), which the module uses as the host has them. */
const HOST_PACKAGES = new Set(["next", "react", "react-dom", "@next/env"]);
/** Packages no import names: the Prisma CLI, the generated client's runtime, Swagger UI's files, host:check's runner */
const UNIMPORTED = { dependencies: ["prisma", "@prisma/client", "swagger-ui-dist"], devDependencies: ["tsx"] };
/** The Prisma CLI and client, which belong to the package that generates the client. */
const PRISMA_PACKAGES = ["prisma", "@prisma/client"];
/** Prisma's packages beside its client, which must be of the client's own version. */
const PRISMA_COMPANIONS = new Set(["@prisma/adapter-pg", "@prisma/driver-adapter-utils", "@prisma/instrumentation"]);
const CHECK_SCRIPT = "tsx scripts/host/check.ts";
/** The host's start script's preload: added to what NODE_OPTIONS the environment gives, not in place of it. */
const startPreload = (sourceRoot: string) => `NODE_OPTIONS="$NODE_OPTIONS --import=./${sourceRoot}${PRELOAD_FILE}"`;
const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

/** Bare package names the files import (static, dynamic and type imports), read by TypeScript's own pre-parser. */
function importedPackages(moduleRoot: string, files: string[]): Set<string> {
  const builtins = new Set(builtinModules);
  const names = new Set<string>();
  for (const file of files.filter((f) => /\.(ts|tsx|mts|mjs)$/.test(f))) {
    const source = readFileSync(path.join(moduleRoot, file), "utf8");
    for (const { fileName } of ts.preProcessFile(source, true, true).importedFiles) {
      if (/^(\.|@\/|node:)/.test(fileName) || builtins.has(fileName)) continue;
      const parts = fileName.split("/");
      names.add(fileName.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]);
    }
  }
  return names;
}

/**
 * The host's package.json with the packages the module uses, at exactly the versions of this project's lock, the
 * preload in its start script, and `host:check`. A package the host already lists keeps the host's range.
 */
export function planPackages(moduleRoot: string, hostPackage: HostPackage, files: string[], project: HostProject) {
  const lock = readJson<{ packages: Record<string, { version: string; peerDependencies?: Record<string, string> }> }>(
    path.join(moduleRoot, "package-lock.json"),
  );
  const ownDependencies = readJson<{ dependencies: Record<string, string> }>(
    path.join(moduleRoot, "package.json"),
  ).dependencies;
  const json = structuredClone(hostPackage);
  const changes: string[] = [];
  const notes: string[] = [];
  const wanted = new Map<string, "dependencies" | "devDependencies">();
  const copied = files.filter((f) => existsSync(path.join(moduleRoot, f)));
  // What only `host:check` imports is a tool of the host's developers, not of its server.
  const served = importedPackages(
    moduleRoot,
    copied.filter((f) => !f.startsWith("scripts/")),
  );
  for (const name of new Set([
    ...served,
    ...importedPackages(
      moduleRoot,
      copied.filter((f) => f.startsWith("scripts/")),
    ),
  ])) {
    if (HOST_PACKAGES.has(name)) continue;
    wanted.set(name, served.has(name) ? "dependencies" : "devDependencies");
    if (lock.packages[`node_modules/@types/${name}`]) wanted.set(`@types/${name}`, "devDependencies");
    // Peers this project lists itself (@vercel/otel's OpenTelemetry packages): at its versions, not npm's choice.
    for (const peer of Object.keys(lock.packages[`node_modules/${name}`]?.peerDependencies ?? {})) {
      if (peer in ownDependencies && !HOST_PACKAGES.has(peer)) wanted.set(peer, "dependencies");
    }
  }
  // The Prisma CLI and the client's runtime belong to the package that generates the client: a workspace's has them.
  for (const [kind, names] of Object.entries(UNIMPORTED) as [keyof typeof UNIMPORTED, string[]][])
    for (const name of names) if (!(project.schemaPackage && PRISMA_PACKAGES.includes(name))) wanted.set(name, kind);
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
  const nextEnv = "@next/env";
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
  const start = scripts.start ?? "";
  const preload = startPreload(project.sourceRoot);
  if (!start.includes(`${project.sourceRoot}${PRELOAD_FILE}`)) {
    if (/^next start\b/.test(start)) {
      set.start = { before: scripts.start ?? null, after: `${preload} ${start}` };
      changes.push(`start runs next start with the preload (${preload})`);
    } else {
      notes.push(
        `the start script does not begin with "next start", so it was left alone: give next start ${preloadFor(project.sourceRoot)} ` +
          "yourself; without it requests are bounded by Node's defaults, not 30 s, and methods Next refuses get " +
          "its HTML 405, not the module's JSON",
      );
    }
  }
  if (scripts["host:check"] !== CHECK_SCRIPT) {
    set["host:check"] = { before: scripts["host:check"] ?? null, after: CHECK_SCRIPT };
    changes.push(`script host:check`);
  }
  for (const [name, { after }] of Object.entries(set)) scripts[name] = after;
  json.scripts = scripts;
  return { json, changes, notes, added, scripts: set };
}
