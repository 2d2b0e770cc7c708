// What the module's migrations leave in a database, read from prisma/migrations in the order they run: the host's
// check names the triggers a host's database must have, the uninstall drops them, and the embedded cluster's start
// refuses any trigger or function that is not among them.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** `CREATE TRIGGER name … ON table` and `DROP TRIGGER [IF EXISTS] name ON table`. */
const TRIGGER_STATEMENT = new RegExp(
  String.raw`\b(?:CREATE\s+(?:OR\s+REPLACE\s+)?|(DROP)\s+)TRIGGER\s+(?:IF\s+EXISTS\s+)?"?(\w+)"?` +
    String.raw`[^;]*?\bON\s+(?:\w+\.)?"?(\w+)"?`,
  "gi",
);
/** `CREATE [OR REPLACE] FUNCTION name` and `DROP FUNCTION [IF EXISTS] name`. */
const FUNCTION_STATEMENT =
  /\b(?:CREATE\s+(?:OR\s+REPLACE\s+)?|(DROP)\s+)FUNCTION\s+(?:IF\s+EXISTS\s+)?(?:\w+\.)?"?(\w+)"?/gi;
/**
 * `CREATE TABLE` and `DROP TABLE`. A table created with IF NOT EXISTS is one the host may have (customers, users,
 * referrals, audit_entries), so it is not the module's.
 */
const TABLE_STATEMENT = /\b(?:(CREATE)\s+|(DROP)\s+)TABLE\s+(IF\s+(?:NOT\s+)?EXISTS\s+)?(?:\w+\.)?"?(\w+)"?/gi;
/** `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table …;` */
const INDEX_STATEMENT = /\bCREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?"?(\w+)"?\s+ON\s+"?(\w+)"?([^;]*)/gi;
/** The opening of a dollar-quoted body: `$$` or `$tag$`. */
const DOLLAR_QUOTE = /\$(\w*)\$/g;

/**
 * What the migrations leave: their names in run order, their triggers (`table.trigger`), their functions with the
 * body PostgreSQL keeps in pg_proc.prosrc, their tables, and the indexes elsewhere that use one of their functions.
 *
 * @param {string} migrationsDir
 * @returns {MigrationObjects}
 */
export function migrationObjects(migrationsDir) {
  const migrations = readdirSync(migrationsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const triggers = new Set();
  /** @type {Map<string, string>} */
  const functions = new Map();
  /** @type {Set<string>} */
  const tables = new Set();
  /** @type {[string, string, string][]} */
  const indexes = [];
  for (const name of migrations) {
    const sql = readFileSync(path.join(migrationsDir, name, "migration.sql"), "utf8");
    // Comments blanked to spaces of the same length, so that positions in `code` are positions in `sql`.
    const code = sql.replace(/--[^\n]*/g, (comment) => " ".repeat(comment.length));
    for (const [, drop, trigger, table] of code.matchAll(TRIGGER_STATEMENT)) {
      if (drop) triggers.delete(`${table}.${trigger}`);
      else triggers.add(`${table}.${trigger}`);
    }
    for (const match of code.matchAll(FUNCTION_STATEMENT)) {
      const [, drop, fn] = match;
      if (drop) functions.delete(fn);
      else functions.set(fn, body(sql, code, match.index + match[0].length));
    }
    for (const [, create, , condition, table] of code.matchAll(TABLE_STATEMENT)) {
      if (!create) tables.delete(table);
      else if (!condition) tables.add(table);
    }
    for (const [, index, table, rest] of code.matchAll(INDEX_STATEMENT)) indexes.push([index, table, rest]);
  }
  return {
    migrations,
    triggers: [...triggers].sort(),
    functions: Object.fromEntries(functions),
    tables: [...tables].sort(),
    indexes: indexes
      .filter(([, table, rest]) => !tables.has(table) && [...functions.keys()].some((f) => rest.includes(`"${f}"`)))
      .map(([index]) => index)
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
