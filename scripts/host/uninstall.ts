// `npm run host:uninstall -- <host-dir> [--yes]`: takes out what `host:install` put into a host (docs/host-guide.md,
// "Uninstalling"). Without --yes it prints what it would do and changes nothing.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import * as nextEnv from "@next/env";
import pg from "pg";
import { classifyFailure } from "../../lib/db/failures";
import { HOST_NAMES, parseHostNames, type HostNames } from "../../lib/db/host-names";
import { applyDrops, planDrops, planLines } from "./drop-plan";
import { commandLine } from "./check/command-line";
import { refuse, refusalSentence, stopLine, type HostFolder } from "./host-folder";
import { installAndGenerate, readHostPackage } from "./host-package";
import { STATE_FILE } from "./manifest";
import { withoutServerExternalPackages } from "./next-config";
import { planNextTypes } from "./next-types";
import { NAMES_FILE } from "./plan-install";
import { hostModelMap } from "./plan-schema";
import { migrationsOf, packageManagerOf, schemaHomeOf, sourceRootOf } from "./project-info";
import { migrationNameOf } from "./names-migration";
import { readRecord } from "./record";
import { withoutAdded } from "./schema-removal";
import { openHost } from "./workspace";

const MODULE_ROOT = path.resolve(import.meta.dirname, "../..");
const MIGRATIONS = path.join(MODULE_ROOT, "prisma/migrations");
const USAGE = `Usage: npm run host:uninstall -- <host-dir> [--yes]

Takes out of the host what host:install put in. Without --yes it prints what it would do and changes nothing.`;
/** The files `next start` reads its environment from (production), as host:check reads them. */
const ENV_FILES = [".env.production.local", ".env.local", ".env.production", ".env"];
/** How long the drops wait for the host's tables (a trigger's drop locks its table) before giving up. */
const LOCK_TIMEOUT = "10s";

/** The host's names the install wrote its migrations in; the module's own where an earlier install wrote none. */
function hostNamesOf(host: HostFolder, sourceRoot: string): HostNames {
  const text = host.readText(`${sourceRoot}${NAMES_FILE}`);
  if (text === undefined) return HOST_NAMES;
  try {
    return parseHostNames(JSON.parse(text));
  } catch (error) {
    refuse(
      `${sourceRoot}${NAMES_FILE} cannot be read (${refusalSentence(error)}); put back the file the install wrote`,
    );
  }
}

const sha256 = (content: Buffer) => createHash("sha256").update(content).digest("hex");

async function main(): Promise<void> {
  const {
    values: { yes },
    positionals: [hostArg],
  } = commandLine(USAGE, { options: { yes: { type: "boolean", default: false } }, min: 1 });
  const host = openHost(path.resolve(process.env.INIT_CWD ?? process.cwd(), hostArg));
  const manager = packageManagerOf(host);
  const schemaHome = schemaHomeOf(host);
  const schemaTexts = schemaHome.schema.files.map((file) => host.readText(file) ?? "");
  const sourceRoot = sourceRootOf(host);
  const record = readRecord(host, {
    sourceRoot,
    migrations: migrationsOf(schemaHome, schemaTexts),
    schemaFiles: schemaHome.schema.files,
  });
  if (Object.keys(record.files).length === 0) refuse(`${host.root} has no ${STATE_FILE}: the module is not installed`);
  // Read before the file is staged for removal.
  const names = hostNamesOf(host, sourceRoot);
  // Each migration as the install wrote it, by name: in the names of its day, and the names migrations.
  const written = new Map(
    Object.entries(record.files)
      .filter(([file]) => file.endsWith("/migration.sql"))
      .map(([file, hash]) => [migrationNameOf(file), hash]),
  );
  // What to drop is read from this clone's migrations: an older clone would not know a newer module's objects.
  const version = (JSON.parse(readFileSync(path.join(MODULE_ROOT, "package.json"), "utf8")) as { version: string })
    .version;
  if (compareVersions(record.version, version) > 0)
    refuse(
      `the host has the module's ${record.version}, newer than this clone's ${version}; uninstall from a clone of it`,
    );

  // Every file read and every change decided before the first change.
  const lines: string[] = [];
  const removed: string[] = [];
  const kept: string[] = [];
  for (const [file, hash] of Object.entries(record.files)) {
    const content = host.read(file);
    if (content === undefined) continue;
    if (sha256(content) === hash) {
      host.stage(file, null);
      removed.push(file);
    } else kept.push(file);
  }
  host.stage(STATE_FILE, null);
  lines.push(`- files: ${removed.length} removed`, ...kept.map((f) => `- kept, edited by the host: ${f}`));
  lines.push(
    ...planPackageJson(host, record),
    ...planSchema(host, record, schemaHome.schema),
    ...planNextConfig(host, record),
  );
  const nextTypes = planNextTypes(host);
  lines.push(...nextTypes.lines);

  // Checked before Next's loader reads them: a link out of the folder, or a FIFO, is refused.
  for (const file of ENV_FILES) host.exists(file);
  const env = "loadEnvConfig" in nextEnv ? nextEnv : (nextEnv as unknown as { default: typeof nextEnv }).default;
  env.loadEnvConfig(host.root, false, { info: () => {}, error: () => {} });
  const url = process.env.DATABASE_URL;

  if (!yes) {
    lines.push(
      ...(url
        ? await inDatabase(url, "read", async (client) =>
            planLines(await planDrops(client, MIGRATIONS, names, written)),
          )
        : ["- database: not read, as DATABASE_URL is not set (in the environment or the host's .env files)"]),
    );
    console.log([`host:uninstall would take the Lead Intake module out of ${host.root}:`, ...lines].join("\n"));
    console.log("Nothing was changed; run again with --yes to do it.");
    return;
  }
  if (!url) refuse("DATABASE_URL is not set (in the environment or the host's .env files)");
  lines.push(
    ...(await inDatabase(url, "dropped", async (client) => {
      const plan = await planDrops(client, MIGRATIONS, names, written);
      await applyDrops(client, plan);
      return planLines(plan);
    })),
  );
  try {
    host.apply();
  } catch (error) {
    console.error(
      `host:uninstall: ${refusalSentence(error)}; the module's database objects were dropped and the host's files ` +
        "left as they were: run it again.",
    );
    process.exitCode = 1;
    return;
  }
  lines.push("Left to do, in the host's folder:", `1. ${installAndGenerate(manager, schemaHome.package?.name)}`);
  console.log([`Lead Intake module taken out of ${host.root}:`, ...lines].join("\n"));
}

/** Negative, zero or positive as version `a` is older than, the same as or newer than `b` (major.minor.patch). */
function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split(".").map((part) => Number.parseInt(part, 10) || 0));
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** package.json without the packages and scripts the install added, where the host left them as installed. */
function planPackageJson(host: HostFolder, record: ReturnType<typeof readRecord>): string[] {
  const text = host.readText("package.json")!;
  const json = readHostPackage(host);
  const lines: string[] = [];
  const removed: string[] = [];
  for (const [name, version] of Object.entries(record.packages)) {
    for (const kind of ["dependencies", "devDependencies"]) {
      const has = json[kind]?.[name];
      if (has === undefined) continue;
      if (has === version) {
        delete json[kind]![name];
        removed.push(name);
      } else lines.push(`- kept ${name}@${has} in package.json (the install added ${version})`);
    }
  }
  for (const [name, { before, after }] of Object.entries(record.scripts)) {
    const scripts = json.scripts ?? {};
    if (scripts[name] !== after) {
      if (scripts[name] !== undefined) lines.push(`- kept the script ${name}, edited by the host`);
      continue;
    }
    if (before === null) delete scripts[name];
    else scripts[name] = before;
    removed.push(`script ${name}`);
  }
  for (const kind of ["dependencies", "devDependencies", "scripts"])
    if (json[kind] && Object.keys(json[kind]).length === 0) delete json[kind];
  if (removed.length) {
    const indent = /^\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? 2;
    host.stage("package.json", `${JSON.stringify(json, null, indent)}${text.endsWith("\n") ? "\n" : ""}`);
  }
  return [`- package.json: ${removed.length ? `removed ${removed.join(", ")}` : "unchanged"}`, ...lines];
}

/**
 * The host's schema (where the install found it: a file or a folder of files, in the app or a workspace package)
 * without the models, fields and indexes the install added (found by the host's names for the module's models); a
 * file of a folder left with nothing, the install's, goes.
 */
function planSchema(
  host: HostFolder,
  record: ReturnType<typeof readRecord>,
  schema: { files: string[]; folder?: string },
): string[] {
  if (!record.schema.length || !schema.files.length) return [];
  const gone = new Set(record.schema);
  const names = hostModelMap(host, schema.files, MODULE_ROOT);
  for (const file of schema.files) {
    const text = host.readText(file) ?? "";
    let result: ReturnType<typeof withoutAdded>;
    try {
      result = withoutAdded(text, record.schema, names);
    } catch (error) {
      refuse(`${file} cannot be read as a Prisma schema (${(error as Error).message.split("\n")[0]})`);
    }
    for (const entry of record.schema) if (!result.missing.includes(entry)) gone.delete(entry);
    if (result.schema !== text) host.stage(file, schema.folder && result.schema.trim() === "" ? null : result.schema);
  }
  return [
    `- ${schema.folder ?? schema.files[0]}: removed ${record.schema.filter((e) => !gone.has(e)).join(", ") || "nothing"}` +
      (gone.size ? ` (already gone: ${[...gone].join(", ")})` : ""),
  ];
}

function planNextConfig(host: HostFolder, record: ReturnType<typeof readRecord>): string[] {
  if (!record.nextConfig) return [];
  const { file, packages, created } = record.nextConfig;
  const text = host.readText(file);
  if (text === undefined) return [];
  const edited = withoutServerExternalPackages(text, file, packages, created);
  if (edited === undefined)
    return [
      `- ${file}: remove ${packages.join(", ")} from serverExternalPackages by hand if the host has no use for them`,
    ];
  if (edited !== text) host.stage(file, edited);
  return [`- ${file}: serverExternalPackages without ${packages.join(", ")}`];
}

/**
 * One transaction: the plan is read and carried out in it, so either all it names is dropped, or nothing. A failure is
 * one sentence, with PostgreSQL's own naming the object in the way (a lock, or a host object that depends on one).
 */
async function inDatabase<T>(
  url: string,
  verb: "read" | "dropped",
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query("BEGIN");
    await client.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    const { kind, code } = classifyFailure(error);
    const { severity, message, detail } = error as { severity?: unknown; message: string; detail?: string };
    // For objects in the way, PostgreSQL's detail names them (view x depends on table y), no row's values.
    const said = severity ? `: ${message}${code === "2BP01" && detail ? ` (${detail.split("\n")[0]})` : ""}` : "";
    refuse(`the module's database objects could not be ${verb} (${kind}${code ? ` ${code}` : ""}${said})`);
  } finally {
    await client.end().catch(() => {});
  }
}

main().catch((error: unknown) => {
  console.error(stopLine("host:uninstall", error));
  process.exitCode = 1;
});
