// `npm run host:install -- <host-dir>`: puts the module into a Next.js 16 app (docs/host-guide.md, "Installing").
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";
import { MIN_KEY_LENGTH } from "../../lib/api/api-key.mjs";
import { commandLine } from "./command-line";
import { refuse, refusalSentence, type HostFolder } from "./host-folder";
import { installAndGenerate, readHostPackage, type HostPackage } from "./host-package";
import { moduleFiles, PRELOAD_FILE, preloadFor, STATE_FILE } from "./manifest";
import { hostNeeds } from "./needs-of";
import { serverExternalPackagesOf, withServerExternalPackages } from "./next-config";
import { readRecord, recordText, type InstallRecord } from "./record";
import { models, parseSchema } from "./prisma-names";
import { gateLine } from "./gate";
import { hasImports, withHostAlias } from "./imports";
import {
  clientImportOf,
  hostPathOf,
  MODULE_CLIENT,
  readHostProject,
  type HostProject,
  type PackageManager,
} from "./project-info";
import { mergeSchemaFiles } from "./schema-files";
import { openHost } from "./workspace";

const MODULE_ROOT = path.resolve(import.meta.dirname, "../..");
const HOST_SCHEMA = "prisma/schema.prisma";
/** The module's migration runner, and its line naming the folder it applies at start, written with the host's. */
const MIGRATION_RUNNER = {
  file: "lib/db/migrate.ts",
  folder: (folder: string) => `const MIGRATIONS_FOLDER = "${folder}";`,
};
const MODULE_MIGRATIONS = "prisma/migrations";
/** The file of a host's schema folder that the models the host lacks go into. */
const SCHEMA_FOLDER_FILE = "lead_intake.prisma";
/** What `host:check` reads: the module's needs, the host's schema and the files written (scripts/host/check.ts). */
const NEEDS_FILE = "scripts/host/needs.json";
/** The host's own packages (and what comes with Next), which the module uses as the host has them. */
const HOST_PACKAGES = new Set(["next", "react", "react-dom", "@next/env"]);
/** Packages no import names: the Prisma CLI, the generated client's runtime, Swagger UI's files, host:check's runner */
const UNIMPORTED = { dependencies: ["prisma", "@prisma/client", "swagger-ui-dist"], devDependencies: ["tsx"] };
/** The Prisma CLI and client, which belong to the package that generates the client. */
const PRISMA_PACKAGES = ["prisma", "@prisma/client"];
const SERVER_EXTERNAL_PACKAGES = ["pg", "@prisma/adapter-pg"];
/**
 * Next 15 bundles the server with webpack, which warns at every build about swagger-jsdoc's require of an expression
 * (under next-swagger-doc); loaded from node_modules instead, as Next 16's Turbopack does by itself.
 */
const NEXT_15_EXTERNAL_PACKAGES = ["next-swagger-doc"];
/** Prisma's packages beside its client, which must be of the client's own version. */
const PRISMA_COMPANIONS = new Set(["@prisma/adapter-pg", "@prisma/driver-adapter-utils", "@prisma/instrumentation"]);
const NEXT_CONFIGS = ["next.config.ts", "next.config.mjs", "next.config.js"];
const CHECK_SCRIPT = "tsx scripts/host/check.ts";
/** The host's start script's preload: added to what NODE_OPTIONS the environment gives, not in place of it. */
const startPreload = (sourceRoot: string) => `NODE_OPTIONS="$NODE_OPTIONS --import=./${sourceRoot}${PRELOAD_FILE}"`;

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");
const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

const USAGE = `Usage: npm run host:install -- <host-dir>

Puts the module into the Next.js app in <host-dir>, or upgrades it there (docs/host-guide.md, "Installing").`;

function main(hostArg: string): void {
  const host = openHost(path.resolve(process.env.INIT_CWD ?? process.cwd(), hostArg));
  const hostPackage = readHostPackage(host);
  const project = readHostProject(host);

  // Everything is read and decided before anything is written: a refusal leaves the host as it was.
  const record = readRecord(host);
  const schema = planSchema(host, project, new Set(record.schema.filter((entry) => entry.includes("."))));
  const copied = moduleFiles(MODULE_ROOT);
  const files = new Map<string, string | Buffer>(
    copied.map((file) => [hostPathOf(project, file), moduleFileFor(project, file)]),
  );
  const clientImport = clientImportOf(project);
  if (clientImport) files.set(hostPathOf(project, MODULE_CLIENT), `export * from "${clientImport}";\n`);
  const written = [...files.keys(), NEEDS_FILE].sort();
  const needs = {
    ...hostNeeds(MODULE_ROOT),
    schema: project.schemaFolder ?? project.schemaFiles[0] ?? HOST_SCHEMA,
    files: written,
    sourceRoot: project.sourceRoot,
    gate: project.gate ?? null,
  };
  files.set(NEEDS_FILE, `${JSON.stringify(needs, null, 2)}\n`);
  const packages = planPackages(hostPackage, copied, project);

  const report = {
    added: [] as string[],
    updated: [] as string[],
    unchanged: 0,
    kept: [] as string[],
    removed: [] as string[],
  };
  const recorded: Record<string, string> = {};
  for (const [file, content] of files) {
    const wanted = sha256(content);
    const existing = host.read(file);
    const current = existing && sha256(existing);
    if (current === wanted) {
      report.unchanged++;
      // The host's own file that happens to be the module's (an identical migration_lock.toml) stays the host's.
      if (!(file in record.files)) continue;
    } else if (current === undefined || current === record.files[file]) {
      host.stage(file, content);
      (current === undefined ? report.added : report.updated).push(file);
    } else {
      report.kept.push(file);
      // Still the module's where an install wrote it; a file of the host's own that no install wrote stays unrecorded.
      if (file in record.files) recorded[file] = record.files[file];
      continue;
    }
    recorded[file] = wanted;
  }
  for (const [file, hash] of Object.entries(record.files)) {
    if (files.has(file)) continue;
    const existing = host.read(file);
    if (existing && sha256(existing) === hash) {
      host.stage(file, null);
      report.removed.push(file);
    } else if (existing) report.kept.push(`${file} (no longer part of the module)`);
  }

  for (const [file, text] of schema.changed) host.stage(file, text);
  if (packages.changes.length) host.stage("package.json", `${JSON.stringify(packages.json, null, 2)}\n`);
  const nextConfig = addServerExternalPackages(host, record.nextConfig, [
    ...SERVER_EXTERNAL_PACKAGES,
    ...(project.majors.next < 16 ? NEXT_15_EXTERNAL_PACKAGES : []),
  ]);
  const version = readJson<{ version: string }>(path.join(MODULE_ROOT, "package.json")).version;
  host.stage(
    STATE_FILE,
    recordText({
      version,
      files: recorded,
      packages: { ...record.packages, ...packages.added },
      schema: [...new Set([...record.schema, ...schema.added])],
      scripts: { ...packages.scripts, ...record.scripts },
      nextConfig: nextConfig.record,
    }),
  );
  host.apply();

  const lines = [
    `Lead Intake module ${version} installed into ${host.root}:`,
    `- files: ${report.added.length} added, ${report.updated.length} updated, ${report.unchanged} unchanged, ` +
      `${report.removed.length} removed (recorded in ${STATE_FILE})`,
    ...report.kept.map((file) => `- kept, edited by the host (compare with the module's): ${file}`),
    `- ${schema.where}: ${schema.created ? "written with the module's models" : schema.added.length ? `added ${schema.added.join(", ")}` : "already has the module's models"}`,
    ...(project.schemaPackage ? [`- ${workspaceLine(host, project, project.schemaPackage)}`] : []),
    `- package.json: ${packages.changes.length ? packages.changes.join("; ") : "unchanged"}`,
    ...packages.notes.map((note) => `- ${note}`),
    `- ${nextConfig.line}`,
    ...(project.gate ? [`- ${gateLine(project.gate)}`] : []),
    "Left to do, in the host's folder:",
    ...leftToDo(project.packageManager, project.schemaPackage?.name).map((step, i) => `${i + 1}. ${step}`),
  ];
  console.log(lines.join("\n"));
}

/**
 * The steps after the install, each a command to run as printed but the settings: the packages and the client, the
 * settings, the build, the host's own start (its start script, which has the preload), then the check.
 */
function leftToDo(manager: PackageManager, schemaPackage: string | undefined): string[] {
  return [
    installAndGenerate(manager, schemaPackage),
    `Set LEADS_API_KEY (at least ${MIN_KEY_LENGTH} characters: openssl rand -base64 32) and DATABASE_URL (the ` +
      "host's PostgreSQL) in the environment or the host's .env",
    `${manager} run build`,
    `${manager} start`,
    `${manager} run host:check`,
  ];
}

/**
 * The module's models merged into the host's schema, a file or a folder of files (where the models the host lacks
 * go into a file of their own). A host without a schema gets the module's.
 */
function planSchema(
  host: HostFolder,
  project: HostProject,
  addedBefore: ReadonlySet<string>,
): { changed: Map<string, string>; added: string[]; created?: true; where: string } {
  const moduleSchema = readFileSync(path.join(MODULE_ROOT, HOST_SCHEMA), "utf8");
  if (project.schemaFiles.length === 0) {
    const added = models(parseSchema(moduleSchema)).map((m) => m.name);
    return { changed: new Map([[HOST_SCHEMA, moduleSchema]]), added, created: true, where: HOST_SCHEMA };
  }
  const where = project.schemaFolder ?? project.schemaFiles[0];
  const files = project.schemaFiles.map((file) => ({ file, text: host.readText(file) ?? "" }));
  const newFile = project.schemaFolder && `${project.schemaFolder}/${SCHEMA_FOLDER_FILE}`;
  let merge: ReturnType<typeof mergeSchemaFiles>;
  try {
    merge = mergeSchemaFiles(files, moduleSchema, addedBefore, newFile);
  } catch (error) {
    refuse(`${where} cannot be read as a Prisma schema (${(error as Error).message.split("\n")[0]})`);
  }
  if (merge.conflicts.length) refuse(`${where}: ${merge.conflicts.join("; ")}`);
  return { changed: merge.changed, added: merge.added, where };
}

/**
 * A module file as the host gets it: its imports of the module's alias written with the host's, and the folder its
 * migration runner applies written as the host's folder of migrations.
 */
function moduleFileFor(project: HostProject, file: string): string | Buffer {
  const content = readFileSync(path.join(MODULE_ROOT, file));
  if (!hasImports(file)) return content;
  const source = withHostAlias(content.toString("utf8"), project.alias);
  if (file !== MIGRATION_RUNNER.file) return source;
  const line = MIGRATION_RUNNER.folder(MODULE_MIGRATIONS);
  if (!source.includes(line)) throw new Error(`${file} has no line ${line}`);
  return source.replace(line, MIGRATION_RUNNER.folder(project.migrations));
}

/** Where the install put what in an npm workspace, from its root: the app, the schema's package, the migrations. */
function workspaceLine(
  host: HostFolder,
  project: HostProject,
  schemaPackage: { name: string; folder: string },
): string {
  const fromRoot = (relative: string) => host.inside(relative) ?? relative;
  return (
    `workspace ${host.boundary}: the module's files and packages go into the app ` +
    `(${path.relative(host.boundary, host.root)}), its models into the schema of ${schemaPackage.name} ` +
    `(${fromRoot(project.schemaFolder ?? project.schemaFiles[0])}), its migrations into ${fromRoot(project.migrations)}, ` +
    `and ${schemaPackage.name} generates the client`
  );
}

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
 * The host's package.json with the packages the module uses, at exactly the versions of this project's lock, the
 * preload in its start script, and `host:check`. A package the host already lists keeps the host's range.
 */
function planPackages(hostPackage: HostPackage, files: string[], project: HostProject) {
  const lock = readJson<{ packages: Record<string, { version: string; peerDependencies?: Record<string, string> }> }>(
    path.join(MODULE_ROOT, "package-lock.json"),
  );
  const ownDependencies = readJson<{ dependencies: Record<string, string> }>(
    path.join(MODULE_ROOT, "package.json"),
  ).dependencies;
  const json = structuredClone(hostPackage);
  const changes: string[] = [];
  const notes: string[] = [];
  const wanted = new Map<string, "dependencies" | "devDependencies">();
  const copied = files.filter((f) => existsSync(path.join(MODULE_ROOT, f)));
  // What only `host:check` imports is a tool of the host's developers, not of its server.
  const served = importedPackages(copied.filter((f) => !f.startsWith("scripts/")));
  for (const name of new Set([...served, ...importedPackages(copied.filter((f) => f.startsWith("scripts/")))])) {
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

/** `serverExternalPackages` in the host's next.config (.ts, .mjs or .js), or what the host must add by hand. */
function addServerExternalPackages(
  host: HostFolder,
  recorded: InstallRecord["nextConfig"],
  wanted: string[],
): { line: string; record: InstallRecord["nextConfig"] } {
  const list = wanted.join(", ");
  const manual = {
    line: `add serverExternalPackages: ${JSON.stringify(wanted).replace(/,/g, ", ")} to the host's next.config by hand`,
    record: recorded,
  };
  const name = NEXT_CONFIGS.find((n) => host.exists(n));
  if (!name) return manual;
  const text = host.readText(name)!;
  const before = serverExternalPackagesOf(text, name);
  const edited = withServerExternalPackages(text, name, wanted);
  if (before === undefined || edited === undefined) return { ...manual, line: `${name}: ${manual.line}` };
  if (edited === null) return { line: `${name}: serverExternalPackages already lists ${list}`, record: recorded };
  // Said only of what the edited text evaluates to.
  const after = serverExternalPackagesOf(edited, name);
  if (!wanted.every((p) => after?.includes(p))) return { ...manual, line: `${name}: ${manual.line}` };
  host.stage(name, edited);
  const created = recorded?.file === name ? recorded.created : !/\bserverExternalPackages\b/.test(text);
  const packages = wanted.filter((p) => !before.includes(p));
  return {
    line: `${name}: serverExternalPackages lists ${list}`,
    record: { file: name, packages: [...new Set([...(recorded?.packages ?? []), ...packages])], created },
  };
}

try {
  main(commandLine(USAGE, { min: 1 }).positionals[0]);
} catch (error) {
  console.error(`host:install: ${refusalSentence(error)}; nothing was changed.`);
  process.exitCode = 1;
}
