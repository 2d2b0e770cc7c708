import path from "node:path";
import type { HostNames } from "@/lib/db/host-names";
import { NAMES_MIGRATION } from "@/lib/db/migration-objects.mjs";
import { renderStatements } from "./render-migration";

/** The names migration written at `now`, as a module path: named by the time, so that it runs after the host's own. */
export const namesMigrationPath = (now: Date) =>
  `prisma/migrations/${now.toISOString().replace(/\D/g, "").slice(0, 14)}${NAMES_MIGRATION}/migration.sql`;

/** A migration's name: the folder of its `migration.sql`. */
export const migrationNameOf = (file: string) => path.basename(path.dirname(file));

const NAMES_MIGRATION_NAME = new RegExp(`^\\d{14}${NAMES_MIGRATION}$`);

/** Whether `file`, a path in the host (`hostPath` maps a module path there), is a names migration an install wrote. */
export function isNamesMigration(file: string, hostPath: (modulePath: string) => string): boolean {
  const name = migrationNameOf(file);
  return NAMES_MIGRATION_NAME.test(name) && hostPath(`prisma/migrations/${name}/migration.sql`) === file;
}

/** What the install says of the names migration it writes. */
export const namesMigrationNote = (file: string) =>
  `the names changed since the module's migrations were written: those stay as written, and ${file} moves the ` +
  "module's functions, triggers and own indexes to the new names (your own migration that renames tables or " +
  "columns must run before it)";

const CREATE_FUNCTION = /^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\b/i;
/** A function's name and parameters: PostgreSQL replaces a function only with the same parameter names. */
const FUNCTION_HEADER = /^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+((?:\w+\.)?"?\w+"?\s*\([^)]*\))/i;
const CREATE_TRIGGER = /^CREATE\s+TRIGGER\s+("(?:[^"]|"")+"|\w+)[\s\S]*?\sON\s+("(?:[^"]|"")+"|\w+)/i;
const DROP_TRIGGER = /^DROP\s+TRIGGER\s+(?:IF\s+EXISTS\s+)?/i;
const CREATE_INDEX = /^CREATE\s+(UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?("(?:[^"]|"")+"|\w+)/i;
/** An index the module made for itself: one on a function of its own (the others are in the host's schema). */
const ON_MODULE_FUNCTION = /\blead_intake_\w+"?\s*\(/;
const DO_BLOCK = /^DO\b/i;
/** A DO block that sets a function's privileges or search_path, which CREATE OR REPLACE resets. */
const ON_FUNCTIONS = /\bFUNCTION\b/i;

/** A statement without the comments and blank lines before it. */
const bare = (statement: string) => statement.replace(/^(?:\s+|--[^\n]*\n?)*/, "");

/**
 * A migration moving what the module's migrations made on the host's tables from the names they were written in
 * (`from`) to the names now (`to`): it drops the old triggers, own indexes and functions whose parameters change, then
 * reruns in the new names each statement making a function, trigger or such index and each DO block on functions.
 */
export function namesMigration(
  migrations: { name: string; sql: string }[],
  own: HostNames,
  from: HostNames,
  to: HostNames,
): string {
  const drops: string[] = [];
  /** After the indexes that use them. */
  const functionDrops: string[] = [];
  const runs: string[] = [];
  for (const { sql } of migrations) {
    const before = renderStatements(sql, own, from);
    const after = renderStatements(sql, own, to);
    after.forEach((rendered, i) => {
      const previous = before[i];
      const was = previous ? bare(previous) : null;
      if (rendered === null) return;
      const statement = bare(rendered);
      const trigger = CREATE_TRIGGER.exec(statement);
      const index = CREATE_INDEX.exec(statement);
      if (trigger) {
        const old = was && CREATE_TRIGGER.exec(was);
        if (old && was !== statement) drops.push(`DROP TRIGGER IF EXISTS ${old[1]} ON ${old[2]};`);
        runs.push(`DROP TRIGGER IF EXISTS ${trigger[1]} ON ${trigger[2]};\n${statement}`);
      } else if (index && ON_MODULE_FUNCTION.test(statement)) {
        const old = was && CREATE_INDEX.exec(was);
        if (old && was !== statement) drops.push(`DROP INDEX IF EXISTS ${old[2]};`);
        runs.push(statement.replace(CREATE_INDEX, `CREATE ${index[1] ?? ""}INDEX IF NOT EXISTS ${index[2]}`));
      } else if (CREATE_FUNCTION.test(statement)) {
        const old = was && FUNCTION_HEADER.exec(was)?.[1];
        if (old && old !== FUNCTION_HEADER.exec(statement)?.[1]) functionDrops.push(`DROP FUNCTION IF EXISTS ${old};`);
        runs.push(statement.replace(CREATE_FUNCTION, "CREATE OR REPLACE FUNCTION"));
      } else if (DROP_TRIGGER.test(statement)) {
        runs.push(statement.replace(DROP_TRIGGER, "DROP TRIGGER IF EXISTS "));
      } else if (DO_BLOCK.test(statement) && ON_FUNCTIONS.test(statement)) {
        runs.push(statement);
      }
    });
  }
  return [
    "-- Written by host:install: the module's functions, triggers and own indexes on the host's tables, moved to the",
    "-- names in lib/db/host-names.json; no row changes.",
    ...drops,
    ...new Set(functionDrops),
    ...runs,
    "",
  ].join("\n");
}
