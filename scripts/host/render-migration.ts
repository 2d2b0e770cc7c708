import { HOST_FIELDS, type HostModel, type HostNames } from "@/lib/db/host-names";

/**
 * A module migration in the host's names: each quoted host table and column (in string literals too) and Prisma's
 * default name for each index on one; all else kept, so own names give the same text. A statement on a table the host
 * lacks is left out; a column that two host tables of one statement map differently throws.
 */
export function renderMigration(sql: string, from: HostNames, to: HostNames): string {
  return renderStatements(sql, from, to)
    .filter((statement) => statement !== null)
    .join("");
}

/**
 * Each statement of a migration (its `;` and the comments before it included) as renderMigration writes it, in order;
 * null for one it leaves out.
 */
export function renderStatements(sql: string, from: HostNames, to: HostNames): (string | null)[] {
  const names = namesOf(from, to);
  const tokens = tokenize(sql);
  const statements = splitStatements(tokens);
  const inMigration = new Set(statements.flatMap((statement) => [...tablesNamed(statement, names)]));
  return statements.map((statement) => {
    // A statement's columns are those of the tables it names; a trigger function's, of those its migration names.
    const named = tablesNamed(statement, names);
    const referenced = named.size ? named : inMigration;
    const scopes = columnListTables(statement, names);
    const rename = (name: string, index: number): string | null => {
      const model = names.tableModel.get(name);
      if (model) return names.tables.get(model) ?? null;
      const listed = scopes.get(index);
      const column = listed ? columnOf(name, new Set([listed]), names) : undefined;
      return column ?? columnOf(name, referenced, names) ?? indexName(name, names);
    };
    let text = "";
    let dropped = false;
    statement.forEach((token, index) => {
      if (!isName(token)) {
        text += token.text;
        return;
      }
      const name = unquote(token);
      const renamed = rename(name, index);
      if (renamed === null) dropped = true;
      else text += renamed === name ? token.text : requote(token, renamed);
    });
    return dropped ? null : text;
  });
}

/** The tokens of each top-level statement, its `;` included. */
function splitStatements(tokens: Token[]): Token[][] {
  const statements: Token[][] = [[]];
  for (const token of tokens) {
    statements.at(-1)!.push(token);
    if (token.kind === "end") statements.push([]);
  }
  return statements;
}

/**
 * The table of each name inside a parenthesized list that follows a host table's name, `"referrals" (...)` or
 * `REFERENCES "customers"("id")`, by the name's index in the statement: a column there is that table's.
 */
function columnListTables(statement: Token[], names: Names): Map<number, HostModel> {
  const tables = new Map<number, HostModel>();
  const open: { model: HostModel; depth: number }[] = [];
  let depth = 0;
  let pending: HostModel | undefined;
  statement.forEach((token, index) => {
    if (isName(token)) {
      pending = names.tableModel.get(unquote(token));
      if (!pending && open.length) tables.set(index, open.at(-1)!.model);
      return;
    }
    for (const char of token.text) {
      if (char === "(") {
        depth++;
        if (pending) open.push({ model: pending, depth });
      } else if (char === ")") {
        if (open.at(-1)?.depth === depth) open.pop();
        depth--;
      }
      if (!/\s/.test(char)) pending = undefined;
    }
  });
  return tables;
}

/** The host models whose tables a statement names. */
function tablesNamed(statement: Token[], names: Names): Set<HostModel> {
  const models = new Set<HostModel>();
  for (const token of statement) {
    const model = isName(token) ? names.tableModel.get(unquote(token)) : undefined;
    if (model) models.add(model);
  }
  return models;
}

interface Names {
  /** The module's table of each host model, and the model of each such table. */
  tableModel: Map<string, HostModel>;
  /** The host's table of each model; absent where the host lacks it. */
  tables: Map<HostModel, string>;
  /** Per model, the module's column to the host's (null where the host lacks it). */
  columns: Map<HostModel, Map<string, string | null>>;
}

function namesOf(from: HostNames, to: HostNames): Names {
  const names: Names = { tableModel: new Map(), tables: new Map(), columns: new Map() };
  for (const model of Object.keys(HOST_FIELDS) as HostModel[]) {
    const own = from[model]!;
    const host = to[model];
    names.tableModel.set(own.table, model);
    if (!host) continue;
    names.tables.set(model, host.table);
    const columns = own.columns as Record<string, string | null>;
    const hostColumns = host.columns as Record<string, string | null>;
    names.columns.set(
      model,
      new Map(Object.keys(columns).flatMap((field) => (columns[field] ? [[columns[field], hostColumns[field]]] : []))),
    );
  }
  return names;
}

/** The host's column for a module column of the tables the migration names; undefined when it is none of theirs. */
function columnOf(name: string, referenced: ReadonlySet<HostModel>, names: Names): string | undefined {
  const found = new Set<string | null>();
  for (const model of referenced) {
    const columns = names.columns.get(model);
    if (columns?.has(name)) found.add(columns.get(name)!);
  }
  if (found.size > 1)
    throw new Error(
      `column ${name} of the module is ${[...found].join(" and ")} in the host's tables one statement names`,
    );
  const [column] = found;
  // A column the host lacks keeps its name: the migration checks for it before using it.
  return column === undefined ? undefined : (column ?? name);
}

/** `<table>_<columns>_idx` of a host table, as Prisma names the host's index; `<table>_<other>` keeps its tail. */
function indexName(name: string, names: Names): string {
  for (const [table, model] of names.tableModel) {
    if (!name.startsWith(`${table}_`)) continue;
    const hostTable = names.tables.get(model);
    if (hostTable === undefined) return name;
    const tail = name.slice(table.length + 1);
    const columns = names.columns.get(model)!;
    const parts = tail.endsWith("_idx") ? splitColumns(tail.slice(0, -"_idx".length), columns) : null;
    return parts ? `${hostTable}_${parts.map((c) => columns.get(c) ?? c).join("_")}_idx` : `${hostTable}_${tail}`;
  }
  return name;
}

/** `referrer_customer_id_id` as the columns it joins, [referrer_customer_id, id]; null when it is not columns. */
function splitColumns(joined: string, columns: ReadonlyMap<string, unknown>): string[] | null {
  if (joined === "") return [];
  for (const column of [...columns.keys()].sort((a, b) => b.length - a.length)) {
    if (joined === column) return [column];
    if (joined.startsWith(`${column}_`)) {
      const rest = splitColumns(joined.slice(column.length + 1), columns);
      if (rest) return [column, ...rest];
    }
  }
  return null;
}

/**
 * The SQL as tokens: a quoted identifier, a string literal whose whole text may be a name ('referrals' or
 * '"referrals"'), the `;` that ends a top-level statement, and everything else (comments included) as it is.
 */
interface Token {
  kind: "identifier" | "literal" | "quoted literal" | "end" | "other";
  text: string;
}

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let other = "";
  let inBody = false;
  const flush = () => {
    if (other) tokens.push({ kind: "other", text: other });
    other = "";
  };
  for (let i = 0; i < sql.length;) {
    const rest = sql.slice(i, i + 2);
    let end: number;
    if (rest === "--") {
      end = sql.indexOf("\n", i);
      end = end === -1 ? sql.length : end;
      other += sql.slice(i, end);
      i = end;
    } else if (rest === "$$") {
      inBody = !inBody;
      other += rest;
      i += 2;
    } else if (sql[i] === '"') {
      end = sql.indexOf('"', i + 1);
      while (sql[end + 1] === '"') end = sql.indexOf('"', end + 2);
      flush();
      tokens.push({ kind: "identifier", text: sql.slice(i, end + 1) });
      i = end + 1;
    } else if (sql[i] === "'") {
      const escapes = /[eE]/.test(sql[i - 1] ?? "") && !/\w/.test(sql[i - 2] ?? "");
      end = i + 1;
      for (;;) {
        if (escapes && sql[end] === "\\") end += 2;
        else if (sql[end] === "'" && sql[end + 1] === "'") end += 2;
        else if (sql[end] === "'" || end >= sql.length) break;
        else end++;
      }
      const text = sql.slice(i, end + 1);
      const simple = /^'"?[a-z_][a-z0-9_]*"?'$/.test(text);
      flush();
      tokens.push({
        kind: simple ? (text.startsWith(`'"`) ? "quoted literal" : "literal") : "other",
        text,
      });
      i = end + 1;
    } else if (sql[i] === ";" && !inBody) {
      flush();
      tokens.push({ kind: "end", text: ";" });
      i++;
    } else {
      other += sql[i];
      i++;
    }
  }
  flush();
  return tokens;
}

const isName = ({ kind }: Token) => kind === "identifier" || kind === "literal" || kind === "quoted literal";

function unquote({ kind, text }: Token): string {
  if (kind === "identifier") return text.slice(1, -1).replaceAll('""', '"');
  if (kind === "literal") return text.slice(1, -1);
  if (kind === "quoted literal") return text.slice(2, -2);
  return text;
}

function requote({ kind }: Token, name: string): string {
  const identifier = `"${name.replaceAll('"', '""')}"`;
  if (kind === "identifier") return identifier;
  return `'${(kind === "literal" ? name : identifier).replaceAll("'", "''")}'`;
}
