import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { HostFolder } from "./host-folder";
import { hasImports, withHostAlias } from "./imports";
import type { HostProject } from "./project-info";
import type { InstallRecord } from "./record";

/** The module's migration runner, and its line naming the folder it applies at start, written with the host's. */
const MIGRATION_RUNNER = {
  file: "lib/db/migrate.ts",
  folder: (folder: string) => `const MIGRATIONS_FOLDER = "${folder}";`,
};
const MODULE_MIGRATIONS = "prisma/migrations";

export const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

/**
 * A module file as the host gets it: its imports of the module's alias written with the host's, and the folder its
 * migration runner applies written as the host's folder of migrations.
 */
export function moduleFileFor(moduleRoot: string, project: HostProject, file: string): string | Buffer {
  const content = readFileSync(path.join(moduleRoot, file));
  if (!hasImports(file)) return content;
  const source = withHostAlias(content.toString("utf8"), project.alias);
  if (file !== MIGRATION_RUNNER.file) return source;
  const line = MIGRATION_RUNNER.folder(MODULE_MIGRATIONS);
  if (!source.includes(line)) throw new Error(`${file} has no line ${line}`);
  return source.replace(line, MIGRATION_RUNNER.folder(project.migrations));
}

export interface FilesPlan {
  /** Each write (null: a removal). */
  writes: Map<string, string | Buffer | null>;
  /** The SHA-256 of each file the module now has in the host. */
  recorded: Record<string, string>;
  report: { added: string[]; updated: string[]; unchanged: number; kept: string[]; removed: string[] };
}

/**
 * The module's files against the host's and the record of earlier installs: a file the host edited is kept and named;
 * a recorded file the module does not have is removed where the host left it as written.
 */
export function planFiles(host: HostFolder, files: Map<string, string | Buffer>, record: InstallRecord): FilesPlan {
  const plan: FilesPlan = {
    writes: new Map(),
    recorded: {},
    report: { added: [], updated: [], unchanged: 0, kept: [], removed: [] },
  };
  const { report, recorded } = plan;
  for (const [file, content] of files) {
    const wanted = sha256(content);
    const existing = host.read(file);
    const current = existing && sha256(existing);
    if (current === wanted) {
      report.unchanged++;
      // The host's own file that happens to be the module's (an identical migration_lock.toml) stays the host's.
      if (!(file in record.files)) continue;
    } else if (current === undefined || current === record.files[file]) {
      plan.writes.set(file, content);
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
      plan.writes.set(file, null);
      report.removed.push(file);
    } else if (existing) report.kept.push(`${file} (no longer part of the module)`);
  }
  return plan;
}
