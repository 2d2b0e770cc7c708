// `npm run host:install -- <host-dir>`: puts the module into a Next.js 16 app (docs/host-guide.md, "Installing").
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";
import { MIN_KEY_LENGTH } from "../../lib/api/api-key.mjs";
import { moduleFiles, PRELOAD, PRELOAD_FILE, STATE_FILE } from "./manifest";
import { hostNeeds } from "./needs-of";
import { withServerExternalPackages } from "./next-config";
import { clientOutputOf, mergeSchemas } from "./schema";

const MODULE_ROOT = path.resolve(import.meta.dirname, "../..");
const HOST_SCHEMA = "prisma/schema.prisma";
/** What `host:check` reads: the module's needs, the host's schema and the files written (scripts/host/check.ts). */
const NEEDS_FILE = "scripts/host/needs.json";
/** The host's own packages (and what comes with Next), which the module uses as the host has them. */
const HOST_PACKAGES = new Set(["next", "react", "react-dom", "@next/env"]);
/** Packages no import names: the Prisma CLI, the generated client's runtime, Swagger UI's files, host:check's runner */
const UNIMPORTED = { dependencies: ["prisma", "@prisma/client", "swagger-ui-dist"], devDependencies: ["tsx"] };
const SERVER_EXTERNAL_PACKAGES = ["pg", "@prisma/adapter-pg"];
const CHECK_SCRIPT = "tsx scripts/host/check.ts";
/** The host's start script's preload: added to what NODE_OPTIONS the environment gives, not in place of it. */
const START_PRELOAD = `NODE_OPTIONS="$NODE_OPTIONS --import=./${PRELOAD_FILE}"`;

interface State {
  version: string;
  files: Record<string, string>;
  /** The fields of the host's schema the installs added, as `Model.field`: one the host then removed stays removed. */
  schemaFields?: string[];
}

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");
const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

class Refusal extends Error {}

function main(hostArg: string | undefined): void {
  if (!hostArg) throw new Refusal("Name the host app's folder: npm run host:install -- <host-dir>");
  const host = path.resolve(process.env.INIT_CWD ?? process.cwd(), hostArg);
  const packageFile = path.join(host, "package.json");
  if (!existsSync(packageFile)) throw new Refusal(`${host} has no package.json; name the folder of a Next.js 16 app`);
  const hostPackage = readJson<Record<string, Record<string, string> | undefined>>(packageFile);
  const nextVersion = hostPackage.dependencies?.next ?? "";
  if (!/^[\^~]?16\./.test(nextVersion))
    throw new Refusal(`${host} depends on next ${nextVersion || "(none)"}; the module needs Next.js 16`);
  checkAlias(host);

  const state: State = existsSync(path.join(host, STATE_FILE))
    ? readJson<State>(path.join(host, STATE_FILE))
    : { version: "", files: {} };
  // Everything is decided before anything is written: a refusal leaves the host as it was.
  const schema = planSchema(host, new Set(state.schemaFields));
  const files = new Map<string, string | Buffer>(
    moduleFiles(MODULE_ROOT).map((file) => [file, readFileSync(path.join(MODULE_ROOT, file))]),
  );
  if (schema.clientImport) files.set("lib/generated/prisma/client.ts", `export * from "${schema.clientImport}";\n`);
  const written = [...files.keys(), NEEDS_FILE].sort();
  const needs = { ...hostNeeds(MODULE_ROOT), schema: HOST_SCHEMA, files: written };
  files.set(NEEDS_FILE, `${JSON.stringify(needs, null, 2)}\n`);
  const packages = planPackages(hostPackage, [...files.keys()]);

  const report = {
    added: [] as string[],
    updated: [] as string[],
    unchanged: 0,
    kept: [] as string[],
    removed: [] as string[],
  };
  const recorded: Record<string, string> = {};
  for (const [file, content] of files) {
    const target = path.join(host, file);
    const wanted = sha256(content);
    const current = existsSync(target) ? sha256(readFileSync(target)) : undefined;
    if (current === wanted) {
      report.unchanged++;
    } else if (current === undefined || current === state.files[file]) {
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, content);
      (current === undefined ? report.added : report.updated).push(file);
    } else {
      report.kept.push(file);
      recorded[file] = state.files[file] ?? "";
      continue;
    }
    recorded[file] = wanted;
  }
  for (const [file, hash] of Object.entries(state.files)) {
    if (files.has(file)) continue;
    const target = path.join(host, file);
    if (existsSync(target) && sha256(readFileSync(target)) === hash) {
      rmSync(target);
      report.removed.push(file);
    } else if (existsSync(target)) report.kept.push(`${file} (no longer part of the module)`);
  }

  if (schema.merged) writeFileSync(path.join(host, HOST_SCHEMA), schema.merged);
  if (packages.changes.length) writeFileSync(packageFile, `${JSON.stringify(packages.json, null, 2)}\n`);
  const nextConfig = addServerExternalPackages(host);
  const version = readJson<{ version: string }>(path.join(MODULE_ROOT, "package.json")).version;
  const schemaFields = [...new Set([...(state.schemaFields ?? []), ...schema.added.filter((a) => a.includes("."))])];
  const record: State = { version, files: recorded, schemaFields: schemaFields.sort() };
  writeFileSync(path.join(host, STATE_FILE), `${JSON.stringify(record, null, 2)}\n`);

  const lines = [
    `Lead Intake module ${version} installed into ${host}:`,
    `- files: ${report.added.length} added, ${report.updated.length} updated, ${report.unchanged} unchanged, ` +
      `${report.removed.length} removed (recorded in ${STATE_FILE})`,
    ...report.kept.map((file) => `- kept, edited by the host (compare with the module's): ${file}`),
    `- ${HOST_SCHEMA}: ${schema.added.length ? `added ${schema.added.join(", ")}` : "already has the module's models"}`,
    `- package.json: ${packages.changes.length ? packages.changes.join("; ") : "unchanged"}`,
    ...packages.notes.map((note) => `- ${note}`),
    `- ${nextConfig}`,
    "Left to do, in the host's folder:",
    ...leftToDo(packageManagerOf(host)).map((step, i) => `${i + 1}. ${step}`),
  ];
  console.log(lines.join("\n"));
}

/** The host's package manager, by its lockfile. */
function packageManagerOf(host: string): "npm" | "pnpm" | "yarn" {
  if (existsSync(path.join(host, "pnpm-lock.yaml"))) return "pnpm";
  if (existsSync(path.join(host, "yarn.lock"))) return "yarn";
  return "npm";
}

/**
 * The steps after the install, each a command to run as printed but the settings: the packages and the client, the
 * settings, the build, the host's own start (its start script, which has the preload), then the check.
 */
function leftToDo(manager: "npm" | "pnpm" | "yarn"): string[] {
  const exec = { npm: "npx", pnpm: "pnpm exec", yarn: "yarn" }[manager];
  return [
    `${manager} install && ${exec} prisma generate`,
    `Set LEADS_API_KEY (at least ${MIN_KEY_LENGTH} characters: openssl rand -base64 32) and DATABASE_URL (the ` +
      "host's PostgreSQL) in the environment or the host's .env",
    `${manager} run build`,
    `${manager} start`,
    `${manager} run host:check`,
  ];
}

/** The module imports its files as `@/...`: the host's tsconfig must map `@/*` to its root. */
function checkAlias(host: string): void {
  const read = ts.readConfigFile(path.join(host, "tsconfig.json"), ts.sys.readFile);
  const paths = (read.config as { compilerOptions?: { paths?: Record<string, string[]> } } | undefined)?.compilerOptions
    ?.paths;
  if (JSON.stringify(paths?.["@/*"]) !== JSON.stringify(["./*"])) {
    throw new Refusal(
      'the host\'s tsconfig.json must map "@/*" to ["./*"] (create-next-app\'s default): ' +
        "the module imports its files that way",
    );
  }
}

/**
 * The module's models merged into the host's schema, and how the module reaches the host's client: the module
 * imports `@/lib/generated/prisma/client`, which re-exports the host's generated client, one client for both.
 */
function planSchema(
  host: string,
  addedBefore: ReadonlySet<string>,
): { merged?: string; added: string[]; clientImport?: string } {
  const moduleSchema = readFileSync(path.join(MODULE_ROOT, HOST_SCHEMA), "utf8");
  const file = path.join(host, HOST_SCHEMA);
  if (!existsSync(file)) return { merged: moduleSchema, added: ["every model (new file)"] };
  const hostSchema = readFileSync(file, "utf8");
  const output = clientOutputOf(hostSchema);
  if (!output)
    throw new Refusal(
      `${HOST_SCHEMA} has no generator with provider "prisma-client" and an output; add one (Prisma 7's default)`,
    );
  const outputDir = path
    .relative(host, path.resolve(path.dirname(file), output))
    .split(path.sep)
    .join("/");
  const merge = mergeSchemas(hostSchema, moduleSchema, addedBefore);
  if (merge.conflicts.length) throw new Refusal(`${HOST_SCHEMA}: ${merge.conflicts.join("; ")}`);
  const clientImport = outputDir === "lib/generated/prisma" ? undefined : `@/${outputDir}/client`;
  return { merged: merge.added.length ? merge.schema : undefined, added: merge.added, clientImport };
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
function planPackages(hostPackage: Record<string, Record<string, string> | undefined>, files: string[]) {
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
  for (const [kind, names] of Object.entries(UNIMPORTED) as [keyof typeof UNIMPORTED, string[]][])
    for (const name of names) wanted.set(name, kind);
  const added: string[] = [];
  for (const [name, kind] of [...wanted].sort(([a], [b]) => a.localeCompare(b))) {
    const version = lock.packages[`node_modules/${name}`]?.version;
    if (!version) throw new Error(`${name} is not in this project's package-lock.json`);
    const has = json.dependencies?.[name] ?? json.devDependencies?.[name];
    if (has === undefined) {
      json[kind] = { ...json[kind], [name]: version };
      added.push(`${name}@${version}`);
    } else if (has !== version) notes.push(`kept the host's ${name}@${has} (the module is tested with ${version})`);
  }
  for (const kind of ["dependencies", "devDependencies"] as const) {
    if (json[kind]) json[kind] = Object.fromEntries(Object.entries(json[kind]).sort(([a], [b]) => a.localeCompare(b)));
  }
  if (added.length) changes.push(`added ${added.join(", ")}`);
  const scripts = { ...json.scripts };
  const start = scripts.start ?? "";
  if (!start.includes(PRELOAD_FILE)) {
    if (/^next start\b/.test(start)) {
      scripts.start = `${START_PRELOAD} ${start}`;
      changes.push(`start runs next start with the preload (${START_PRELOAD})`);
    } else {
      notes.push(
        `the start script does not begin with "next start", so it was left alone: give next start ${PRELOAD} ` +
          "yourself; without it requests are bounded by Node's defaults, not 30 s, and methods Next refuses get " +
          "its HTML 405, not the module's JSON",
      );
    }
  }
  if (scripts["host:check"] !== CHECK_SCRIPT) {
    scripts["host:check"] = CHECK_SCRIPT;
    changes.push(`script host:check`);
  }
  json.scripts = scripts;
  return { json, changes, notes };
}

/** `serverExternalPackages` in the host's next.config (.ts, .mjs or .js), or what the host must add by hand. */
function addServerExternalPackages(host: string): string {
  const name = ["next.config.ts", "next.config.mjs", "next.config.js"].find((n) => existsSync(path.join(host, n)));
  const manual = `add serverExternalPackages: ${JSON.stringify(SERVER_EXTERNAL_PACKAGES).replace(/,/g, ", ")} to the host's next.config by hand`;
  if (!name) return manual;
  const file = path.join(host, name);
  const edited = withServerExternalPackages(readFileSync(file, "utf8"), name, SERVER_EXTERNAL_PACKAGES);
  if (edited === undefined) return manual;
  if (edited === null) return `${name}: serverExternalPackages already lists ${SERVER_EXTERNAL_PACKAGES.join(", ")}`;
  writeFileSync(file, edited);
  return `${name}: serverExternalPackages lists ${SERVER_EXTERNAL_PACKAGES.join(", ")}`;
}

try {
  main(process.argv[2]);
} catch (error) {
  if (!(error instanceof Refusal)) throw error;
  console.error(`host:install: ${error.message}; nothing was changed.`);
  process.exitCode = 1;
}
