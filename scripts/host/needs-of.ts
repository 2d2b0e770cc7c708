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

/** Read from the module's own prisma/schema.prisma and prisma/migrations, so it never disagrees with them. */
export function hostNeeds(moduleRoot: string): HostNeeds {
  const schema = parseSchema(readFileSync(path.join(moduleRoot, "prisma/schema.prisma"), "utf8"));
  const tables: Record<string, string[]> = {};
  for (const model of models(schema)) {
    tables[tableOf(model)] = columnFields(schema, model)
      .filter((f) => !HOST_OWN_FIELDS.has(`${model.name}.${f.name}`))
      .map(columnOf);
  }
  const dir = path.join(moduleRoot, "prisma/migrations");
  const migrations = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const triggers = new Set<string>();
  for (const name of migrations) {
    const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8").replace(/--[^\n]*/g, "");
    for (const m of sql.matchAll(TRIGGER_STATEMENT)) {
      const [, drop, trigger, table] = m;
      if (drop) triggers.delete(`${table}.${trigger}`);
      else triggers.add(`${table}.${trigger}`);
    }
  }
  return { tables, migrations, triggers: [...triggers].sort() };
}
