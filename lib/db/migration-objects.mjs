// What the module's migrations make in a database, read from their SQL in the order they run: start-up refuses a
// pending migration whose object the host already has, the uninstall drops only what still matches it, host:check
// names the triggers, and the embedded cluster's start refuses any trigger or function that is not among them.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * The end of the name of a migration host:install writes when the host's names change: it moves objects the module's
 * earlier migrations made to the new names, so it creates none of its own (scripts/host/names-migration.ts).
 */
export const NAMES_MIGRATION = "_lead_intake_names";

/** `CREATE TRIGGER name … ON table … EXECUTE FUNCTION fn` and `DROP TRIGGER [IF EXISTS] name ON table`. */
const TRIGGER_STATEMENT = new RegExp(
  String.raw`\b(?:CREATE\s+(?:OR\s+REPLACE\s+)?|(DROP)\s+)TRIGGER\s+(?:IF\s+EXISTS\s+)?"?(\w+)"?` +
    String.raw`[^;]*?\bON\s+(?:\w+\.)?"?(\w+)"?(?:[^;]*?\bEXECUTE\s+(?:FUNCTION|PROCEDURE)\s+(?:\w+\.)?"?(\w+)"?)?`,
  "gi",
);
/** `CREATE [OR REPLACE] FUNCTION name(arguments)` and `DROP FUNCTION [IF EXISTS] name[(arguments)]`. */
const FUNCTION_STATEMENT =
  /\b(?:CREATE\s+(?:OR\s+REPLACE\s+)?|(DROP)\s+)FUNCTION\s+(?:IF\s+EXISTS\s+)?(?:\w+\.)?"?(\w+)"?(?:\s*\(([^)]*)\))?/gi;
/**
 * `CREATE TABLE` and `DROP TABLE`. A table created with IF NOT EXISTS is one the host may have (customers, users,
 * referrals, audit_entries), so it is not the module's.
 */
const TABLE_STATEMENT = /\b(?:(CREATE)\s+|(DROP)\s+)TABLE\s+(IF\s+(?:NOT\s+)?EXISTS\s+)?(?:\w+\.)?"?(\w+)"?/gi;
/** `ALTER TABLE name …;`, whose ADD COLUMN and DROP COLUMN clauses change a table's columns. */
const ALTER_TABLE_STATEMENT = /\bALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?(?:\w+\.)?"?(\w+)"?([^;]*)/gi;
const COLUMN_CLAUSE = /\b(ADD|DROP)\s+COLUMN\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?([^,;]+)/gi;
/** `COMMENT ON TABLE name IS '…'` (or NULL). */
const TABLE_COMMENT = /\bCOMMENT\s+ON\s+TABLE\s+(?:\w+\.)?"?(\w+)"?\s+IS\s+(?:NULL|'((?:[^']|'')*)')/gi;
/** `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table …;` */
const INDEX_STATEMENT =
  /\bCREATE\s+(?:UNIQUE\s+)?INDEX\s+(IF\s+NOT\s+EXISTS\s+)?"?(\w+)"?\s+ON\s+(?:\w+\.)?"?(\w+)"?([^;]*)/gi;
/** The opening of a dollar-quoted body: `$$` or `$tag$`. */
const DOLLAR_QUOTE = /\$(\w*)\$/g;
/** What may follow a column's type in its definition. */
const AFTER_TYPE = /\s+(?:NOT\s+NULL|NULL|DEFAULT|PRIMARY|REFERENCES|UNIQUE|CHECK|CONSTRAINT|GENERATED|COLLATE)\b/i;

/**
 * One object the migrations make, as the module's own.
 *
 * @typedef {object} MadeObject
 * @property {"table" | "index" | "function" | "trigger"} kind
 * @property {string} name A table's or index's name; a function's `name(types)`; a trigger's `table.trigger`.
 * @property {string} made The migration that creates it.
 * @property {string[]} migrations Every migration that creates, replaces or alters it, in run order.
 * @property {[string, string][]} [columns] A table's columns, each with its type as written.
 * @property {string | null} [comment] A table's comment.
 * @property {string} [function] A function's name (without its arguments); for a trigger, the one it executes.
 * @property {string} [argumentTypes] A function's argument types, as written but in lower case: `text`.
 * @property {string} [body] A function's body, as PostgreSQL keeps it in pg_proc.prosrc.
 * @property {string} [definition] An index's CREATE INDEX statement.
 * @property {string} [table] An index's or trigger's table.
 * @property {boolean} [ifNotExists] An index created with IF NOT EXISTS.
 */

/**
 * What the migrations leave (`objects`), and per migration the objects it creates that no earlier one created
 * (`created`). The tables are those created without IF NOT EXISTS; the indexes are those on them and those elsewhere
 * that use one of their functions.
 *
 * @param {{ name: string, sql: string }[]} migrations In the order they run.
 * @returns {{ objects: MadeObject[], created: Map<string, MadeObject[]> }}
 */
export function madeObjects(migrations) {
  /** @type {Map<string, MadeObject>} */
  const made = new Map();
  /** @type {Map<string, MadeObject[]>} */
  const created = new Map();
  /** @type {Set<string>} */
  const ever = new Set();
  /** @type {{ rest: string, object: MadeObject }[]} */
  const indexes = [];
  /** @param {string} migration @param {MadeObject} object */
  const create = (migration, object) => {
    const key = `${object.kind} ${object.name}`;
    const before = made.get(key);
    if (before) {
      const migrations = before.migrations.at(-1) === migration ? before.migrations : [...before.migrations, migration];
      Object.assign(before, object, { made: before.made, migrations });
      return;
    }
    made.set(key, { ...object, migrations: [migration] });
    if (!ever.has(key) && !migration.endsWith(NAMES_MIGRATION)) created.get(migration)?.push(made.get(key) ?? object);
    ever.add(key);
  };
  for (const { name: migration, sql } of migrations) {
    created.set(migration, []);
    // Comments blanked to spaces of the same length, so that positions in `code` are positions in `sql`.
    const code = sql.replace(/--[^\n]*/g, (comment) => " ".repeat(comment.length));
    const base = { made: migration, migrations: [migration] };
    for (const match of code.matchAll(TABLE_STATEMENT)) {
      const [, createTable, , condition, table] = match;
      if (!createTable) made.delete(`table ${table}`);
      else if (!condition)
        create(migration, {
          ...base,
          kind: "table",
          name: /** @type {string} */ (table),
          columns: columnsOf(code, match.index + match[0].length),
          comment: null,
        });
    }
    for (const [, table, clauses] of code.matchAll(ALTER_TABLE_STATEMENT)) {
      const object = made.get(`table ${table}`);
      if (!object) continue;
      if (object.migrations.at(-1) !== migration) object.migrations.push(migration);
      for (const [, action, definition] of /** @type {string} */ (clauses).matchAll(COLUMN_CLAUSE)) {
        const column = columnOf(/** @type {string} */ (definition));
        object.columns = object.columns?.filter(([name]) => name !== column[0]);
        if (/** @type {string} */ (action).toUpperCase() === "ADD") object.columns?.push(column);
      }
    }
    for (const [, table, comment] of code.matchAll(TABLE_COMMENT)) {
      const object = made.get(`table ${table}`);
      if (object) object.comment = comment === undefined ? null : comment.replaceAll("''", "'");
    }
    for (const match of code.matchAll(FUNCTION_STATEMENT)) {
      const [, drop, fn, written] = match;
      const argumentTypes = (written ?? "").split(",").map(typeOfArgument).filter(Boolean).join(", ");
      const name = `${fn}(${argumentTypes})`;
      if (drop) {
        for (const [key, object] of made)
          if (object.kind === "function" && object.function === fn && (written === undefined || object.name === name))
            made.delete(key);
        continue;
      }
      create(migration, {
        ...base,
        kind: "function",
        name,
        function: fn,
        argumentTypes,
        body: body(sql, code, match.index + match[0].length),
      });
    }
    for (const [, drop, trigger, table, fn] of code.matchAll(TRIGGER_STATEMENT)) {
      if (drop) made.delete(`trigger ${table}.${trigger}`);
      else create(migration, { ...base, kind: "trigger", name: `${table}.${trigger}`, table, function: fn });
    }
    for (const [statement, condition, index, table, rest] of code.matchAll(INDEX_STATEMENT))
      indexes.push({
        rest: /** @type {string} */ (rest),
        object: {
          ...base,
          kind: "index",
          name: /** @type {string} */ (index),
          table: /** @type {string} */ (table),
          definition: statement.trim(),
          ifNotExists: Boolean(condition),
        },
      });
  }
  // Whether an index is the module's is known once every table and function is read.
  const tables = new Set([...made.values()].filter((o) => o.kind === "table").map((o) => o.name));
  const functions = [...made.values()].filter((o) => o.kind === "function").map((o) => o.function);
  for (const { rest, object } of indexes)
    if (tables.has(object.table ?? "") || functions.some((f) => rest.includes(`"${f}"`))) create(object.made, object);
  return { objects: [...made.values()], created };
}

/**
 * The migrations in a folder, in the order they run.
 *
 * @param {string} migrationsDir
 * @returns {{ name: string, sql: string }[]}
 */
export function readMigrationTexts(migrationsDir) {
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => ({ name, sql: readFileSync(path.join(migrationsDir, name, "migration.sql"), "utf8") }));
}

/**
 * What the migrations leave, by name: their names in run order, their triggers (`table.trigger`), their functions
 * with the body PostgreSQL keeps in pg_proc.prosrc, their tables, and the indexes elsewhere that use a function.
 *
 * @param {string} migrationsDir
 * @returns {MigrationObjects}
 */
export function migrationObjects(migrationsDir) {
  const migrations = readMigrationTexts(migrationsDir);
  const { objects } = madeObjects(migrations);
  /** @param {MadeObject["kind"]} kind */
  const of = (kind) => objects.filter((o) => o.kind === kind);
  const tables = of("table").map((o) => o.name);
  return {
    migrations: migrations.map((m) => m.name),
    triggers: of("trigger")
      .map((o) => o.name)
      .sort(),
    functions: Object.fromEntries(of("function").map((o) => [o.function, o.body])),
    tables: tables.sort(),
    indexes: of("index")
      .filter((o) => !tables.includes(o.table ?? ""))
      .map((o) => o.name)
      .sort(),
  };
}

/**
 * @typedef {object} MigrationObjects
 * @property {string[]} migrations
 * @property {string[]} triggers As `table.trigger`.
 * @property {Record<string, string>} functions Each function's body.
 * @property {string[]} tables
 * @property {string[]} indexes
 */

/**
 * The columns of a CREATE TABLE's parenthesised list that starts after `from`, each with its type as written.
 *
 * @param {string} code
 * @param {number} from
 * @returns {[string, string][]}
 */
function columnsOf(code, from) {
  const open = code.indexOf("(", from);
  /** @type {string[]} */
  const items = [];
  let depth = 0;
  let start = open + 1;
  for (let at = open; at < code.length; at++) {
    const char = code[at];
    if (char === "(") depth++;
    else if (char === ")" && --depth === 0) {
      items.push(code.slice(start, at));
      break;
    } else if (char === "," && depth === 1) {
      items.push(code.slice(start, at));
      start = at + 1;
    }
  }
  return items
    .map((item) => item.trim())
    .filter((item) => item && !/^(CONSTRAINT|PRIMARY|UNIQUE|FOREIGN|CHECK|EXCLUDE)\b/i.test(item))
    .map(columnOf);
}

/**
 * A column definition's name and type: `"slot" INTEGER NOT NULL DEFAULT 0` is `["slot", "INTEGER"]`.
 *
 * @param {string} definition
 * @returns {[string, string]}
 */
function columnOf(definition) {
  const [, name, rest] = /^\s*"?(\w+)"?\s*(.*)$/s.exec(definition) ?? ["", definition.trim(), ""];
  const cut = AFTER_TYPE.exec(rest);
  return [name, (cut ? rest.slice(0, cut.index) : rest).trim()];
}

/**
 * An argument's type: `"name" TEXT` is `TEXT`, `IN x INTEGER DEFAULT 1` is `INTEGER`.
 *
 * @param {string} argument
 */
function typeOfArgument(argument) {
  const words = argument
    .replace(/\s+(?:DEFAULT\b|=).*$/is, "")
    .trim()
    .replace(/^(?:IN|OUT|INOUT|VARIADIC)\s+/i, "")
    .split(/\s+/)
    .filter(Boolean);
  return (words.length > 1 ? words.slice(1) : words).join(" ").replaceAll('"', "").toLowerCase();
}

/**
 * The text between the first dollar quote after `from` and its closing twin.
 *
 * @param {string} sql
 * @param {string} code
 * @param {number} from
 */
function body(sql, code, from) {
  DOLLAR_QUOTE.lastIndex = from;
  const open = DOLLAR_QUOTE.exec(code);
  if (!open) throw new Error(`A function in the migrations has no dollar-quoted body (at character ${from})`);
  const start = open.index + open[0].length;
  const end = sql.indexOf(open[0], start);
  if (end < 0) throw new Error(`A function body in the migrations has no closing ${open[0]}`);
  return sql.slice(start, end);
}
