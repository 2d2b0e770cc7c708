import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { HostNeeds } from "./check";
import { columnFields, columnOf, models, parseSchema, tableOf } from "./prisma-names";
import { HOST_OWN_FIELDS } from "./schema";

/** `CREATE TRIGGER name … ON table` and `DROP TRIGGER [IF EXISTS] name ON table`, in the order the migrations run. */
const TRIGGER_STATEMENT = new RegExp(
  String.raw`\b(?:CREATE\s+(?:OR\s+REPLACE\s+)?|(DROP)\s+)TRIGGER\s+(?:IF\s+EXISTS\s+)?"?(\w+)"?` +
    String.raw`[^;]*?\bON\s+(?:\w+\.)?"?(\w+)"?`,
  "gi",
);
/**
 * Tables and functions the migrations create and drop. A table created with IF NOT EXISTS is one the host may have
 * (customers, users, referrals, audit_entries), so it is not the module's; a temporary table is gone at commit.
 */
const OBJECT_STATEMENT = new RegExp(
  String.raw`\b(?:(CREATE)\s+(?:OR\s+REPLACE\s+)?|(DROP)\s+)(TABLE|FUNCTION)\s+(IF\s+(?:NOT\s+)?EXISTS\s+)?"?(\w+)"?`,
  "gi",
);
/** `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table …;` */
const INDEX_STATEMENT = /\bCREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?"?(\w+)"?\s+ON\s+"?(\w+)"?([^;]*)/gi;

/** What the module's migrations leave in the database, read from their SQL in the order they run. */
export interface MigrationObjects {
  migrations: string[];
  /** As `table.trigger`. */
  triggers: string[];
  functions: string[];
  /** The module's own tables (not those it creates only where the host has none). */
  tables: string[];
  /** Indexes on other tables that use one of the module's functions, so they go with it. */
  indexes: string[];
}

export function migrationObjects(moduleRoot: string): MigrationObjects {
  const dir = path.join(moduleRoot, "prisma/migrations");
  const migrations = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const triggers = new Set<string>();
  const objects = { TABLE: new Set<string>(), FUNCTION: new Set<string>() };
  const indexes: [string, string, string][] = [];
  for (const name of migrations) {
    const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8").replace(/--[^\n]*/g, "");
    for (const [, drop, trigger, table] of sql.matchAll(TRIGGER_STATEMENT)) {
      if (drop) triggers.delete(`${table}.${trigger}`);
      else triggers.add(`${table}.${trigger}`);
    }
    for (const [, create, , kind, condition, object] of sql.matchAll(OBJECT_STATEMENT)) {
      const set = objects[kind.toUpperCase() as keyof typeof objects];
      if (!create) set.delete(object);
      else if (!(kind.toUpperCase() === "TABLE" && condition)) set.add(object);
    }
    for (const [, index, table, rest] of sql.matchAll(INDEX_STATEMENT)) indexes.push([index, table, rest]);
  }
  const functions = [...objects.FUNCTION].sort();
  const tables = [...objects.TABLE].sort();
  return {
    migrations,
    triggers: [...triggers].sort(),
    functions,
    tables,
    indexes: indexes
      .filter(([, table, rest]) => !tables.includes(table) && functions.some((f) => rest.includes(`"${f}"`)))
      .map(([index]) => index)
      .sort(),
  };
}

/** Read from the module's own prisma/schema.prisma and prisma/migrations, so it never disagrees with them. */
export function hostNeeds(moduleRoot: string): HostNeeds {
  const schema = parseSchema(readFileSync(path.join(moduleRoot, "prisma/schema.prisma"), "utf8"));
  const tables: Record<string, string[]> = {};
  for (const model of models(schema)) {
    tables[tableOf(model)] = columnFields(schema, model)
      .filter((f) => !HOST_OWN_FIELDS.has(`${model.name}.${f.name}`))
      .map(columnOf);
  }
  const { migrations, triggers } = migrationObjects(moduleRoot);
  return { tables, migrations, triggers };
}
