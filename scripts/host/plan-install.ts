import { readFileSync } from "node:fs";
import path from "node:path";
import { HOST_NAMES, parseHostNames, type HostNames } from "@/lib/db/host-names";
import { checkPlan } from "./check-plan";
import { refuse, type HostFolder } from "./host-folder";
import { readHostPackage } from "./host-package";
import { moduleFiles, STATE_FILE } from "./manifest";
import { NEXT_15_EXTERNAL_PACKAGES, SERVER_EXTERNAL_PACKAGES } from "./module-adds";
import { hostNeeds } from "./needs-of";
import { isNamesMigration, migrationNameOf, namesMigration, namesMigrationPath } from "./names-migration";
import { moduleFileFor, planFiles, sha256, type FilesPlan } from "./plan-files";
import { planServerExternalPackages } from "./plan-next-config";
import { planPackages } from "./plan-packages";
import { HOST_SCHEMA, planSchema, type Proposal, type SchemaPlan } from "./plan-schema";
import { clientImportOf, hostPathOf, MODULE_CLIENT, readHostProject, type HostProject } from "./project-info";
import { readRecord, recordText, type InstallRecord } from "./record";
import { renderMigration } from "./render-migration";

const MODULE_ROOT = path.resolve(import.meta.dirname, "../..");
/** What `host:check` reads: the module's needs, the host's schema and the files written (scripts/host/check/). */
const NEEDS_FILE = "scripts/host/check/needs.json";
/** The host's table and column names the module's statements are built from (lib/db/host-names.ts). */
export const NAMES_FILE = "lib/db/host-names.json";

/** Everything `host:install` will do to a host, decided before anything is written. */
export interface InstallPlan {
  version: string;
  project: HostProject;
  /** Every file written, with its content (null: removed), the record of the install last. */
  writes: Map<string, string | Buffer | null>;
  files: FilesPlan["report"];
  schema: Omit<SchemaPlan, "changed">;
  /** The host's tables and columns for the module's host models, written into the host's NAMES_FILE. */
  names: HostNames;
  /** The module's migrations whose text the host's names change. */
  renderedMigrations: string[];
  /**
   * Where the host's names changed since an earlier install wrote its migrations: those migrations stay as written,
   * and this new one moves the module's objects to the new names.
   */
  namesMigration?: string;
  packages: Pick<ReturnType<typeof planPackages>, "changes" | "notes">;
  nextConfig: string;
}

/** A module migration in the host's names, or the refusal saying which cannot be. */
function inHostNames(file: string, sql: string, names: HostNames): string {
  try {
    return renderMigration(sql, HOST_NAMES, names);
  } catch (error) {
    refuse(`${file} cannot be written in the host's names (${(error as Error).message})`);
  }
}

/** The names an earlier install wrote the host's migrations in: its NAMES_FILE, where the host left it as written. */
function writtenNames(
  host: HostFolder,
  project: HostProject,
  record: InstallRecord,
): { names: HostNames; text: string } {
  const file = hostPathOf(project, NAMES_FILE);
  const text = host.read(file);
  if (!text || record.files[file] !== sha256(text)) {
    refuse(
      `${file} is not as the last install wrote it, so the names the module's migrations were written in are unknown; put it back as written, then install again`,
    );
  }
  return { names: parseHostNames(JSON.parse(text.toString())), text: text.toString() };
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

/**
 * What the install will do to `host`, or the config file it proposes where the host's names cannot be found; reads
 * the host and this clone, writes nothing. Refuses, in one sentence, a host the module cannot go into.
 */
export function planInstall(host: HostFolder, now = new Date()): InstallPlan | Proposal {
  const hostPackage = readHostPackage(host);
  const project = readHostProject(host);
  const record = readRecord(host, project);
  const schema = planSchema(host, project, MODULE_ROOT, new Set(record.schema.filter((entry) => entry.includes("."))));
  if (!("names" in schema)) return schema;
  const copied = moduleFiles(MODULE_ROOT);
  const renderedMigrations: string[] = [];
  /** Whether a migration an earlier install wrote in names since changed is kept, as a database may have run it. */
  let keptWritten = false;
  const migrations: { name: string; sql: string }[] = [];
  const files = new Map<string, string | Buffer>(
    copied.map((file) => {
      const content = moduleFileFor(MODULE_ROOT, project, file);
      const hostFile = hostPathOf(project, file);
      if (!file.endsWith("/migration.sql")) return [hostFile, content];
      const migration = { name: migrationNameOf(file), sql: content.toString() };
      migrations.push(migration);
      const rendered = inHostNames(file, migration.sql, schema.names);
      if (rendered !== migration.sql) renderedMigrations.push(migration.name);
      const existing = host.read(hostFile);
      if (existing && record.files[hostFile] === sha256(existing) && existing.toString() !== rendered) {
        keptWritten = true;
        return [hostFile, existing];
      }
      return [hostFile, rendered];
    }),
  );
  // Each names migration an earlier install wrote stays, as written.
  const hostPath = (file: string) => hostPathOf(project, file);
  for (const file of Object.keys(record.files).filter((f) => isNamesMigration(f, hostPath))) {
    const existing = host.read(file);
    if (existing) files.set(file, existing);
  }
  let moved: string | undefined;
  const namesText = `${JSON.stringify(schema.names, null, 2)}\n`;
  const written = keptWritten ? writtenNames(host, project, record) : undefined;
  if (written && written.text !== namesText) {
    moved = hostPathOf(project, namesMigrationPath(now));
    files.set(moved, namesMigration(migrations, HOST_NAMES, written.names, schema.names));
  }
  files.set(hostPathOf(project, NAMES_FILE), namesText);
  const clientImport = clientImportOf(project);
  if (clientImport) files.set(hostPathOf(project, MODULE_CLIENT), `export * from "${clientImport}";\n`);
  const needs = {
    ...hostNeeds(MODULE_ROOT),
    schema: project.schemaFolder ?? project.schemaFiles[0] ?? HOST_SCHEMA,
    files: [...files.keys(), NEEDS_FILE].sort(),
    sourceRoot: project.sourceRoot,
    gate: project.gate ?? null,
  };
  files.set(NEEDS_FILE, `${JSON.stringify(needs, null, 2)}\n`);
  const planned = planFiles(host, files, record);
  const writes = planned.writes;
  for (const [file, text] of schema.changed) writes.set(file, text);
  const packages = planPackages(hostPackage, project, record.scripts);
  if (packages.changes.length) writes.set("package.json", `${JSON.stringify(packages.json, null, 2)}\n`);
  const nextConfig = planServerExternalPackages(host, record.nextConfig, [
    ...SERVER_EXTERNAL_PACKAGES,
    ...(project.majors.next < 16 ? NEXT_15_EXTERNAL_PACKAGES : []),
  ]);
  if (nextConfig.write) writes.set(nextConfig.write.file, nextConfig.write.text);
  const version = readJson<{ version: string }>(path.join(MODULE_ROOT, "package.json")).version;
  writes.set(
    STATE_FILE,
    recordText({
      version,
      files: planned.recorded,
      packages: { ...record.packages, ...packages.added },
      schema: [...new Set([...record.schema, ...schema.added])],
      scripts: { ...record.scripts, ...packages.scripts },
      nextConfig: nextConfig.record,
    }),
  );
  // Last, what can be checked without the host's build: the schema as written, and the client import.
  checkPlan(host, project, writes);
  const { changed: _changed, ...schemaSummary } = schema;
  return {
    version,
    project,
    writes,
    files: planned.report,
    schema: schemaSummary,
    names: schema.names,
    renderedMigrations,
    ...(moved ? { namesMigration: moved } : {}),
    packages: { changes: packages.changes, notes: packages.notes },
    nextConfig: nextConfig.line,
  };
}
