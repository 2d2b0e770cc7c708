// `npm run host:check`, in a host app after `npm run host:install`: one line for each thing the module needs and what
// was found, exit 1 when something would fail (docs/host-guide.md, "Checking a host").
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type pg from "pg";
import type { HostModel, ModelNames } from "@/lib/db/host-names";
import type { Migration } from "@/lib/db/migrate";
import { commandLine } from "./command-line";

/**
 * Everything else host:check runs on, loaded once the files the install wrote are checked: in a host the install left
 * half done, a part that cannot be loaded is a FAIL line with its fix, not a stack trace.
 */
async function loadParts() {
  return {
    nextEnv: await import("@next/env"),
    pg: (await import("pg")).default,
    ...(await import("@/lib/api/api-key.mjs")),
    ...(await import("@/lib/db/failures")),
    ...(await import("@/lib/db/grants")),
    ...(await import("@/lib/db/host-names")),
    ...(await import("@/lib/db/layout")),
    ...(await import("@/lib/db/migrate")),
    ...(await import("@/lib/db/migration-objects.mjs")),
    LEAD_STATUSES: (await import("@/lib/leads/schemas")).LEAD_STATUSES,
    ...(await import("@/lib/settings.mjs")),
    ...(await import("./grants")),
    ...(await import("./gate")),
    ...(await import("./prisma-names")),
  };
}
let parts: Awaited<ReturnType<typeof loadParts>>;

/** What the module needs of the host's database: needs.json beside this file, written by the install (needs-of.ts). */
export interface HostNeeds {
  /** The module's own tables, with the columns of their scalar fields. */
  tables: Record<string, string[]>;
  /**
   * The fields of each host model the module reads or writes, with their type in its schema (`String?`): their tables
   * and columns are the host's, from lib/db/host-names.json.
   */
  fields: Record<HostModel, Record<string, string>>;
  /** The module's migrations, in the order they are applied. */
  migrations: string[];
}

/** scripts/host/check/needs.json: what the module needs, and where the install put things in this host. */
interface Needs extends HostNeeds {
  /** The host's Prisma schema, relative to the host's root. */
  schema: string;
  /** Every file the install wrote. */
  files: string[];
  /** Where the host keeps its sources and the module's ("" or "src/"). */
  sourceRoot: string;
  /** The host's own proxy.ts or middleware.ts, which must let the module's paths through. */
  gate: string | null;
}

type Line = ["ok" | "FAIL" | "note", string];

/** How much of an error's first line a FAIL line quotes. */
const MAX_SAID = 200;

/** The preload's file under the host's source root, as `next start` must be given it (NODE_OPTIONS or start). */
const PRELOAD_FILE = "lib/preload/next-server-preload.mjs";

async function check(root: string, baseUrl: string | undefined): Promise<Line[]> {
  const needs = JSON.parse(readFileSync(path.join(root, "scripts/host/check/needs.json"), "utf8")) as Needs;
  const lines: Line[] = [];
  const missingFiles = needs.files.filter((file) => !existsSync(path.join(root, file)));
  if (missingFiles.length)
    lines.push([
      "FAIL",
      `install: missing ${missingFiles.join(", ")}; run npm run host:install again to put them back`,
    ]);
  try {
    parts = await loadParts();
  } catch (error) {
    const said = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, MAX_SAID);
    return [
      ...lines,
      [
        "FAIL",
        `install: a part of the module cannot be loaded (${said}); run the steps npm run host:install printed ` +
          "(install the packages, then generate the Prisma client), or npm run host:install again",
      ],
    ];
  }
  // The named export, whether this file runs as CommonJS (a host without "type": "module") or as ESM.
  const { nextEnv } = parts;
  const env = "loadEnvConfig" in nextEnv ? nextEnv : (nextEnv as unknown as { default: typeof nextEnv }).default;
  env.loadEnvConfig(root, false, { info: () => {}, error: console.error });
  const keyProblem = parts.unusableKeyProblem(process.env);
  lines.push(
    keyProblem
      ? ["FAIL", `key: ${keyProblem}`]
      : ["ok", `key: ${process.env.LEADS_API_KEY?.length} characters (at least ${parts.MIN_KEY_LENGTH})`],
  );
  const settings = parts.settingsProblem(process.env);
  lines.push(settings ? ["FAIL", `settings: ${settings}`] : ["ok", "settings: every one set can be read"]);
  lines.push(preload(root, `${needs.sourceRoot}${PRELOAD_FILE}`));
  const gate = await parts.gateCheck(
    needs.gate,
    baseUrl ?? process.env.LEADS_HOST_URL,
    process.env.LEADS_API_KEY,
    gateText(root, needs.gate),
  );
  if (gate) lines.push(gate);
  const url = process.env.DATABASE_URL;
  if (!url)
    return [...lines, ["FAIL", "database: DATABASE_URL is not set (in the environment or the host's .env files)"]];
  const client = new parts.pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 5_000,
    statement_timeout: 15_000,
  });
  try {
    await client.connect();
    lines.push(["ok", "database: connected"]);
    lines.push(...(await database(client, needs, schemaText(path.join(root, needs.schema)))));
  } catch (error) {
    lines.push(["FAIL", `database: ${parts.classifyFailure(error).kind}`]);
  } finally {
    await client.end().catch(() => {});
  }
  return lines;
}

/** The text of the host's own gate, for the edit its FAIL line gives; undefined where there is none to read. */
function gateText(root: string, gate: string | null): string | undefined {
  try {
    return gate ? readFileSync(path.join(root, gate), "utf8") : undefined;
  } catch {
    return undefined;
  }
}

/** The host's schema: one file, or a folder's .prisma files as the one schema Prisma makes of them. */
function schemaText(schema: string): string {
  if (!statSync(schema).isDirectory()) return readFileSync(schema, "utf8");
  const files = readdirSync(schema).filter((name) => name.endsWith(".prisma"));
  return files
    .sort()
    .map((name) => readFileSync(path.join(schema, name), "utf8"))
    .join("\n");
}

function preload(root: string, preloadFile: string): Line {
  const start = (
    JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts?: Record<string, string> }
  ).scripts?.start;
  if (`${process.env.NODE_OPTIONS ?? ""} ${start ?? ""}`.includes(preloadFile))
    return ["ok", `preload: ${preloadFile}`];
  const found = existsSync(path.join(root, preloadFile)) ? "" : " (and the file is missing)";
  return [
    "note",
    `preload: neither NODE_OPTIONS nor the start script names ${preloadFile}${found}; ` +
      "without it requests are bounded by Node's defaults, not 30 s",
  ];
}

async function database(client: pg.Client, needs: Needs, schemaText: string): Promise<Line[]> {
  const lines: Line[] = [];
  const used = { ...needs.tables, ...hostTablesOf(needs) };
  const { rows: columnRows } = await client.query<{ table_name: string; column_name: string; required: boolean }>(
    `SELECT table_name, column_name, is_nullable = 'NO' AND column_default IS NULL AND is_identity = 'NO'
              AND is_generated = 'NEVER' AS required
     FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ANY($1)`,
    [Object.keys(used)],
  );
  const found = new Set(columnRows.map((r) => `${r.table_name}.${r.column_name}`));
  const tables = new Set(columnRows.map((r) => r.table_name));

  // The module's migrations as this host has them: in its names, which the install rendered them in.
  const migrationFiles = (await parts.readMigrations()).filter((m) => needs.migrations.includes(m.name));
  const migrations = await migrationState(client, needs, migrationFiles);
  const pending = migrations.pending.length > 0;
  const names = await namesLines(client, needs, pending);
  lines.push(...names.lines);
  const missingTables = Object.keys(needs.tables).filter((t) => !tables.has(t));
  const missingColumns = Object.entries(needs.tables).flatMap(([table, columns]) =>
    tables.has(table) ? columns.map((c) => `${table}.${c}`).filter((c) => !found.has(c)) : [],
  );
  // Columns of the tables lead creation inserts into that its INSERTs do not name: without a default, every lead
  // creation would fail.
  const blocking = columnRows
    .filter((r) => r.required && insertedTables().includes(r.table_name))
    .filter((r) => !used[r.table_name]?.includes(r.column_name))
    .map((r) => `${r.table_name}.${r.column_name}`);
  const tableCount = Object.keys(needs.tables).length;
  const tableLine = `tables: ${tableCount - missingTables.length} of ${tableCount} present`;
  if (missingColumns.length)
    lines.push([
      "FAIL",
      `columns missing: ${missingColumns.join(", ")}; the module's migrations made them and it reads and writes ` +
        "them: add them back with a migration of the host's",
    ]);
  else
    lines.push([
      "ok",
      `columns: every column the module uses is present in its ${tableCount - missingTables.length} tables`,
    ]);
  lines.push(
    ...(await schemaFields(client, needs, schemaText, pending, new Set([...missingColumns, ...names.missing]))),
  );
  if (missingTables.length && !pending) lines.push(["FAIL", `${tableLine}; missing: ${missingTables.join(", ")}`]);
  else
    lines.push([
      "ok",
      missingTables.length ? `${tableLine}; the pending migrations create ${missingTables.join(", ")}` : tableLine,
    ]);
  if (blocking.length)
    lines.push(["FAIL", `host columns without a default, which lead creation does not fill: ${blocking.join(", ")}`]);

  const layout = parts.layoutFromColumns(found);
  const layoutColumn = (part: keyof typeof layout) => parts.LAYOUT_COLUMNS[part] ?? `${part} (no column in the names)`;
  const layoutParts = Object.keys(layout) as (keyof typeof layout)[];
  const legacy = layoutParts.filter((part) => !layout[part]);
  lines.push([
    "ok",
    legacy.length
      ? `layout: legacy, without ${legacy.map(layoutColumn).join(", ")}`
      : `layout: normal (${layoutParts.map(layoutColumn).join(" and ")} present)`,
  ]);

  if (migrations.changed.length)
    lines.push(["FAIL", `migrations changed after they were applied: ${migrations.changed.join(", ")}`]);
  lines.push([
    "ok",
    `migrations: ${migrations.applied} of the module's ${needs.migrations.length} applied` +
      (pending ? `, pending (applied at the next start): ${migrations.pending.join(", ")}` : ", none pending"),
  ]);
  lines.push(...(await parts.grantLines(client, pending, Object.keys(used))));
  const { objects } = parts.madeObjects(await parts.readMigrations());
  lines.push(
    ...(await parts.hostFunctionLines(
      client,
      objects.filter((o) => o.kind === "function"),
    )),
  );

  const { rows: triggerRows } = await client.query<{ name: string }>(
    `SELECT c.relname || '.' || t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
     WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace`,
  );
  const present = new Set(triggerRows.map((r) => r.name));
  const triggers = parts
    .madeObjects(migrationFiles)
    .objects.filter((o) => o.kind === "trigger")
    .map((o) => o.name)
    .sort();
  const missingTriggers = triggers.filter((t) => !present.has(t));
  const triggerLine = `triggers: ${triggers.length - missingTriggers.length} of ${triggers.length} present`;
  if (missingTriggers.length && !pending)
    lines.push(["FAIL", `${triggerLine}; missing: ${missingTriggers.join(", ")}`]);
  else
    lines.push([
      "ok",
      missingTriggers.length
        ? `${triggerLine}; the pending migrations create the rest`
        : `${triggerLine}: ${triggers.join(", ")}`,
    ]);
  return lines;
}

/** The host's tables the module uses, by the host's names, with the columns of the fields it reads or writes. */
function hostTablesOf(needs: HostNeeds): Record<string, string[]> {
  const tables: Record<string, string[]> = {};
  for (const [model, names] of hostModels()) {
    if (names) tables[names.table] = Object.keys(needs.fields[model]).flatMap((field) => columnOf(names, field) ?? []);
  }
  return tables;
}

/** Each host model with its names in the host's lib/db/host-names.json (null: the host keeps no such table). */
const hostModels = () => Object.entries(parts.HOST_NAMES) as [HostModel, ModelNames | null][];
const columnOf = (names: ModelNames, field: string) => (names.columns as Record<string, string | null>)[field];

/** The tables lead creation inserts into (lib/db/grants.ts), by the host's names. */
function insertedTables(): string[] {
  const tables: Record<string, readonly string[]> = parts.RUNTIME_GRANTS["creating leads"].tables;
  return Object.keys(tables).filter((table) => tables[table]?.includes("INSERT"));
}

/** The PostgreSQL types that hold each type of the module's schema, the first as the lines name it. */
const COLUMN_TYPES: Record<string, string[]> = {
  String: ["text", "character varying"],
  Int: ["integer"],
  "String[]": ["text[]", "character varying[]"],
};

/**
 * The host's names against its database: each host model's table, and for each field the module reads or writes its
 * column, a type that holds the module's values, the time zone, enum and nullability the names read it with. Returns
 * the lines, and the mapped tables and columns (`table.column`) found missing, which the schema's lines leave to these.
 */
async function namesLines(
  client: pg.Client,
  needs: Needs,
  pending: boolean,
): Promise<{ lines: Line[]; missing: string[] }> {
  const { rows } = await client.query<{
    table: string;
    column: string;
    type: string;
    nullable: boolean;
    enum: string | null;
    labels: string[] | null;
  }>(
    `SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, NULL) AS type,
            NOT a.attnotnull AS nullable, CASE WHEN t.typtype = 'e' THEN t.typname END AS enum,
            (SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid)
              AS labels
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_type t ON t.oid = a.atttypid
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
       AND c.relname = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped`,
    [Object.keys(hostTablesOf(needs))],
  );
  const columns = new Map(rows.map((r) => [`${r.table}.${r.column}`, r]));
  const tables = new Set(rows.map((r) => r.table));
  const layoutOnly = new Set(Object.values(parts.LAYOUT_COLUMNS));
  const remap = "map the field to another column in lead-intake.config.json and run npm run host:install again";
  const resolve =
    `make ${needs.schema} say what the database has and run npm run host:install again, or change the column ` +
    "with a migration of the host's";
  const lines: Line[] = [];
  const missing: string[] = [];
  let agreeing = 0;
  for (const [model, names] of hostModels()) {
    if (!names) continue;
    if (!tables.has(names.table)) {
      missing.push(names.table);
      lines.push(
        pending
          ? ["note", `names: ${model} on table ${names.table}: not there yet; the pending migrations create it`]
          : [
              "FAIL",
              `names: ${model} on table ${names.table}: the database has no such table; create it with a migration ` +
                `of the host's, or name the host's model for ${model} in lead-intake.config.json and run npm run ` +
                "host:install again",
            ],
      );
      continue;
    }
    for (const [field, moduleType] of Object.entries(needs.fields[model])) {
      const column = columnOf(names, field);
      if (!column) continue;
      const at = `names: ${model}.${field} on ${names.table}.${column}`;
      const found = columns.get(`${names.table}.${column}`);
      if (!found) {
        // A layout column the host lacks is the legacy layout, which the layout line names.
        if (layoutOnly.has(`${names.table}.${column}`)) continue;
        missing.push(`${names.table}.${column}`);
        lines.push(["FAIL", `${at}: no such column; add it with a migration of the host's, or ${remap}`]);
        continue;
      }
      const type = moduleType.replace(/\?$/, "");
      const foundType = found.enum === null ? found.type : `enum ${found.enum}`;
      const enumType = (names.enums as Record<string, string | undefined>)[field];
      const zone = (names.withoutTimeZone as string[]).includes(field) ? "without" : "with";
      const problem = (() => {
        if (enumType !== undefined) {
          if (found.enum !== enumType) return `${foundType}, where the names say enum ${enumType}; ${resolve}`;
          const lacking = parts.LEAD_STATUSES.filter((label) => !found.labels?.includes(label));
          if (lacking.length)
            return (
              `enum ${enumType} without ${lacking.join(" and ")}, which the module writes; add ` +
              `${lacking.length > 1 ? "them" : "it"} with a migration of the host's: ` +
              lacking.map((label) => `ALTER TYPE ${parts.quoted(enumType)} ADD VALUE '${label}';`).join(" ")
            );
        } else if (type === "DateTime") {
          if (found.type !== `timestamp ${zone} time zone`)
            return `${foundType}, where the names say timestamp ${zone} time zone; ${resolve}`;
        } else {
          const accepted = COLUMN_TYPES[type];
          if (accepted && !accepted.includes(foundType))
            return (
              `${foundType}, where the module writes ${accepted[0]}; change the column's type with a migration of ` +
              `the host's, or ${remap}`
            );
        }
        const required = !moduleType.endsWith("?") && !moduleType.endsWith("[]");
        if (found.nullable && required && !(names.nullable as string[]).includes(field))
          return (
            "nullable, where the module needs a value; make the column NOT NULL with a migration of the host's, or " +
            `make the host's field optional in ${needs.schema} and run npm run host:install again`
          );
        return undefined;
      })();
      if (problem) lines.push(["FAIL", `${at}: ${problem}`]);
      else agreeing++;
    }
  }
  if (lines.every(([status]) => status !== "FAIL")) {
    const models = hostModels().map(([model, names]) => `${model} on ${names?.table ?? "no table"}`);
    lines.unshift(["ok", `names: ${models.join(", ")} (${agreeing} columns agree)`]);
  }
  return { lines, missing };
}

/**
 * Every column field of the host's schema against the database: a field without its column makes the host's own
 * queries of that model fail (P2022). What the lines above report missing (`reported`) is theirs; a table the pending
 * migrations create is not there yet.
 */
async function schemaFields(
  client: pg.Client,
  needs: Needs,
  schemaText: string,
  pending: boolean,
  reported: ReadonlySet<string>,
): Promise<Line[]> {
  const { rows } = await client.query<{ column: string }>(
    `SELECT table_name || '.' || column_name AS column FROM information_schema.columns
     WHERE table_schema = current_schema()`,
  );
  const columns = new Set(rows.map((r) => r.column));
  const tables = new Set(rows.map((r) => r.column.split(".")[0]));
  const layoutOnly = new Set(Object.values(parts.LAYOUT_COLUMNS));
  const schema = parts.parseSchema(schemaText);
  const ignored = (attributes: { name: string }[] | undefined) => attributes?.some((a) => a.name === "ignore");
  const lines: Line[] = [];
  let checked = 0;
  for (const model of parts.models(schema)) {
    const table = parts.tableOf(model);
    if (model.properties.some((p) => p.type === "attribute" && p.kind === "object" && p.name === "ignore")) continue;
    if (!tables.has(table)) {
      if (!reported.has(table) && !(pending && (table in needs.tables || table in hostTablesOf(needs))))
        lines.push([
          "FAIL",
          `schema: model ${model.name} maps table ${table}, which the database lacks: remove the model from ` +
            `${needs.schema}, or create the table with a migration of the host's`,
        ]);
      continue;
    }
    for (const field of parts.columnFields(schema, model)) {
      if (ignored(field.attributes)) continue;
      checked++;
      const column = `${table}.${parts.columnOf(field)}`;
      if (columns.has(column) || reported.has(column)) continue;
      lines.push(
        layoutOnly.has(column)
          ? [
              "note",
              `schema: ${model.name}.${field.name} has no column ${column} (the legacy layout): the module reads ` +
                "around it; a query of the host's that selects the field fails",
            ]
          : [
              "FAIL",
              `schema: ${model.name}.${field.name} has no column ${column}: remove the field from ${needs.schema} ` +
                "and run npx prisma generate, or add the column with a migration of the host's",
            ],
      );
    }
  }
  if (lines.every(([status]) => status !== "FAIL"))
    lines.unshift(["ok", `schema: every field of ${needs.schema} has its column (${checked} fields)`]);
  return lines;
}

async function migrationState(client: pg.Client, needs: HostNeeds, migrationFiles: Migration[]) {
  const { rows: exists } = await client.query<{ exists: boolean }>(
    `SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS exists`,
  );
  const recorded = exists[0]?.exists
    ? (
        await client.query<{ migration_name: string; checksum: string }>(
          `SELECT migration_name, checksum FROM "_prisma_migrations"
           WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        )
      ).rows
    : [];
  const applied = new Map(recorded.map((r) => [r.migration_name, r.checksum]));
  const files = new Map(migrationFiles.map((m) => [m.name, m.checksum]));
  return {
    applied: needs.migrations.filter((m) => applied.has(m)).length,
    pending: needs.migrations.filter((m) => !applied.has(m)),
    changed: needs.migrations.filter((m) => applied.has(m) && files.has(m) && applied.get(m) !== files.get(m)),
  };
}

// No top-level await: a host's package.json may make this file CommonJS.
const USAGE = `Usage: npm run host:check [-- --url <base URL>]

Checks, in the host's folder after host:install, what the module needs: the files, settings, key, preload, database,
migrations and grants; with --url (or LEADS_HOST_URL), the module's paths through the host's running server.`;
const { values } = commandLine(USAGE, { options: { url: { type: "string" } } });
void check(process.cwd(), values.url).then(
  (lines) => {
    for (const [status, text] of lines) console.log(`${status.padEnd(4)} ${text}`);
    process.exitCode = lines.some(([status]) => status === "FAIL") ? 1 : 0;
  },
  (error: unknown) => {
    // A file the install writes is missing or unreadable: one line, not a stack trace.
    const said = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, MAX_SAID);
    console.log(`FAIL install: ${said}; run npm run host:install again`);
    process.exitCode = 1;
  },
);
