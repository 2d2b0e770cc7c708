// What an install adds to a host, in one place: `host:install` plans its packages and scripts by it, and every entry
// of a host's record (scripts/host/record.ts) must be one of it before an install or uninstall acts on the record.
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";
import { MODULE_FILES, moduleFiles, PRELOAD_FILE, RETIRED } from "./manifest";
import { fields, indexesOf, indexText, models, parseSchema } from "./check/prisma-names";
import { hostPathOf, type HostProject } from "./project-info";
import { HOST_OWN_FIELDS } from "./schema";

const MODULE_ROOT = path.resolve(import.meta.dirname, "../..");
const readJson = <T>(file: string): T => JSON.parse(readFileSync(path.join(MODULE_ROOT, file), "utf8")) as T;

/** The host's own packages (and what comes with Next), which the module uses as the host has them. */
const HOST_PACKAGES = new Set(["next", "react", "react-dom", "@next/env"]);
/** Packages no import names: the Prisma CLI, the generated client's runtime, Swagger UI's files, host:check's runner */
const UNIMPORTED = { dependencies: ["prisma", "@prisma/client", "swagger-ui-dist"], devDependencies: ["tsx"] };
/** Prisma's packages beside its client, which must be of the client's own version. */
export const PRISMA_COMPANIONS = new Set([
  "@prisma/adapter-pg",
  "@prisma/driver-adapter-utils",
  "@prisma/instrumentation",
]);
/** Listed, at the host's next range, in a pnpm host: pnpm links only a package's own dependencies, and host:check's. */
export const NEXT_ENV = "@next/env";

export type PackageLock = { packages: Record<string, { version: string; peerDependencies?: Record<string, string> }> };
export const moduleLock = () => readJson<PackageLock>("package-lock.json");

/** Bare package names the files import (static, dynamic and type imports), read by TypeScript's own pre-parser. */
function importedPackages(files: string[]): Set<string> {
  const builtins = new Set(builtinModules);
  const names = new Set<string>();
  for (const file of files.filter((f) => /\.(ts|tsx|mts|mjs)$/.test(f))) {
    const source = readFileSync(path.join(MODULE_ROOT, file), "utf8");
    for (const { fileName } of ts.preProcessFile(source, true, true).importedFiles) {
      if (/^(\.|@\/|node:)/.test(fileName) || builtins.has(fileName)) continue;
      const parts = fileName.split("/");
      names.add(fileName.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]);
    }
  }
  return names;
}

/**
 * The packages the module's files need in a host, each as a dependency or, where only `host:check` imports it (a tool
 * of the host's developers, not of its server), a devDependency; with their types and the peers this project lists.
 */
export function moduleDependencies(): Map<string, "dependencies" | "devDependencies"> {
  const lock = moduleLock();
  const ownDependencies = readJson<{ dependencies: Record<string, string> }>("package.json").dependencies;
  const files = moduleFiles(MODULE_ROOT);
  const wanted = new Map<string, "dependencies" | "devDependencies">();
  const served = importedPackages(files.filter((f) => !f.startsWith("scripts/")));
  for (const name of new Set([...served, ...importedPackages(files.filter((f) => f.startsWith("scripts/")))])) {
    if (HOST_PACKAGES.has(name)) continue;
    wanted.set(name, served.has(name) ? "dependencies" : "devDependencies");
    if (lock.packages[`node_modules/@types/${name}`]) wanted.set(`@types/${name}`, "devDependencies");
    // Peers this project lists itself (@vercel/otel's OpenTelemetry packages): at its versions, not npm's choice.
    for (const peer of Object.keys(lock.packages[`node_modules/${name}`]?.peerDependencies ?? {})) {
      if (peer in ownDependencies && !HOST_PACKAGES.has(peer)) wanted.set(peer, "dependencies");
    }
  }
  for (const [kind, names] of Object.entries(UNIMPORTED) as [keyof typeof UNIMPORTED, string[]][])
    for (const name of names) wanted.set(name, kind);
  return wanted;
}

/** The script `host:check` as the install sets it. */
export const CHECK_SCRIPT = "tsx scripts/host/check/check.ts";
/** The host's start script's preload: added to what NODE_OPTIONS the environment gives, not in place of it. */
export const startPreload = (sourceRoot: string, file = PRELOAD_FILE) =>
  `NODE_OPTIONS="$NODE_OPTIONS --import=./${sourceRoot}${file}"`;
/** The start scripts the install edits, which then begin with the preload. */
export const NEXT_START = /^next start\b/;

/**
 * The values this install, then earlier ones, write for the host's script `name` over its value `before`; none for a
 * script the install does not set.
 */
export function writtenScripts(name: string, before: string | null, sourceRoot: string): string[] {
  if (name === "host:check") return [CHECK_SCRIPT, RETIRED.checkScript];
  if (name !== "start" || before === null || !NEXT_START.test(before)) return [];
  return [PRELOAD_FILE, RETIRED.preloadFile].map((file) => `${startPreload(sourceRoot, file)} ${before}`);
}

/** The host's next.config, by the names Next reads, whose serverExternalPackages the install adds these to. */
export const NEXT_CONFIGS = ["next.config.ts", "next.config.mjs", "next.config.js"];
export const SERVER_EXTERNAL_PACKAGES = ["pg", "@prisma/adapter-pg"];
/**
 * Next 15 bundles the server with webpack, which warns at every build about swagger-jsdoc's require of an expression
 * (under next-swagger-doc); loaded from node_modules instead, as Next 16's Turbopack does by itself.
 */
export const NEXT_15_EXTERNAL_PACKAGES = ["next-swagger-doc"];

/** Every file the install writes into a host of this layout, as a path from the app's folder. */
export function moduleHostFiles(layout: Pick<HostProject, "sourceRoot" | "migrations">): Set<string> {
  const generated = MODULE_FILES.filter((entry) => entry.generated).flatMap((entry) => entry.paths);
  return new Set([...moduleFiles(MODULE_ROOT), ...generated].map((file) => hostPathOf(layout, file)));
}

/** Every file earlier versions' installs wrote where this one writes none, as a path from the app's folder. */
export function retiredHostFiles(layout: Pick<HostProject, "sourceRoot" | "migrations">): Set<string> {
  return new Set(RETIRED.files.map((file) => hostPathOf(layout, file)));
}

/**
 * The module's models, each with its fields and its `@@index` entries (as `@@index([...])`); an install adds a model
 * whole, or of its fields those not the host's, and to a host model the indexes it lacks.
 */
export function moduleModels(): Map<string, { fields: Set<string>; addable: Set<string>; indexes: Set<string> }> {
  const schema = parseSchema(readFileSync(path.join(MODULE_ROOT, "prisma/schema.prisma"), "utf8"));
  return new Map(
    models(schema).map((model) => {
      const names = fields(model).map((f) => f.name);
      const addable = names.filter((name) => !HOST_OWN_FIELDS.has(`${model.name}.${name}`));
      const indexes = new Set(indexesOf(model).map(({ keys }) => indexText(keys)));
      return [model.name, { fields: new Set(names), addable: new Set(addable), indexes }];
    }),
  );
}
