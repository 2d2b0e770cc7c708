// What `host:uninstall` drops from the host's database: only what the module's migrations made, recorded as applied
// with the module's checksums, and still as they left it; every other object of a module name stays, named with why.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type pg from "pg";
import type { MigrationChecksums } from "../../lib/db/migrate";
import { HOST_NAMES, type HostNames } from "../../lib/db/host-names";
import { madeObjects, readMigrationTexts, type MadeObject } from "../../lib/db/migration-objects.mjs";
import { renderMigration } from "./render-migration";

export interface DropPlan {
  /** What goes, in the order it is dropped (triggers, indexes, tables, functions), with its statement. */
  drops: { object: string; statement: string }[];
  /** One sentence for each object of one of the module's names that stays. */
  kept: string[];
  /** The module's rows of `_prisma_migrations` that go: those of migrations whose every object goes or is gone. */
  rows: string[];
  /** The module's rows that stay, with those of objects kept. */
  keptRows: string[];
}

/** An object the migrations made, as found in the database. */
interface Found {
  object: MadeObject;
  /** `classid:objid` in pg_depend's terms, for a trigger or an index. */
  key?: string;
  oid?: string;
  /** Why it stays, once known. */
  kept?: string;
  /** Kept as never the module's: its migration is not recorded as the module's. */
  notMade?: boolean;
  /** A function's body as the database has it. */
  body?: string;
  /** A function's dependent objects (pg_depend, normal), each as its key and its description. */
  users?: { key: string; what: string }[];
  /** A trigger's function. */
  runs?: string;
}

/** How many names a sentence lists before it says how many more. */
const MAX_LISTED = 5;

const quoted = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
const listed = (names: string[]) =>
  names.length > MAX_LISTED
    ? `${names.slice(0, MAX_LISTED).join(", ")} and ${names.length - MAX_LISTED} more`
    : names.join(", ");

/**
 * Reads the database (in the caller's transaction, if any) against the migrations in `migrationsDir`, in the host's
 * `names`, and its checksums.json, and decides what goes; it changes nothing.
 */
export async function planDrops(
  client: pg.Client,
  migrationsDir: string,
  names: HostNames,
  /** Each migration's checksum as the install wrote it into the host (names migrations and older names included). */
  asWritten: ReadonlyMap<string, string> = new Map(),
): Promise<DropPlan> {
  // The migrations as the install wrote them into this host: in its names, with the checksums of those texts.
  const texts = readMigrationTexts(migrationsDir).map(({ name, sql }) => ({
    name,
    sql: renderMigration(sql, HOST_NAMES, names),
  }));
  const { objects } = madeObjects(texts);
  const rendered = new Map(texts.map(({ name, sql }) => [name, createHash("sha256").update(sql).digest("hex")]));
  const checksums = JSON.parse(readFileSync(path.join(migrationsDir, "checksums.json"), "utf8")) as MigrationChecksums;
  const isModules = (migration: string, checksum: string) =>
    checksums.landed[migration] === checksum ||
    checksums.earlier[checksum] === migration ||
    rendered.get(migration) === checksum ||
    asWritten.get(migration) === checksum;
  const query = async <Row extends object>(text: string, values: unknown[] = []) =>
    (await client.query<Row>(text, values)).rows;

  const [{ schema, hasTable }] = await query<{ schema: string; hasTable: boolean }>(
    `SELECT current_schema() AS schema, to_regclass('"_prisma_migrations"') IS NOT NULL AS "hasTable"`,
  );
  const recorded = new Map(
    (hasTable
      ? await query<{ migration_name: string; checksum: string }>(
          `SELECT migration_name, checksum FROM "_prisma_migrations"
           WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        )
      : []
    ).map((r) => [r.migration_name, r.checksum]),
  );
  const tables = objects.filter((o) => o.kind === "table");
  const ownTables = new Set(tables.map((o) => o.name));
  const functions = objects.filter((o) => o.kind === "function");
  const indexes = objects.filter((o) => o.kind === "index" && !ownTables.has(o.table!));
  const triggers = objects.filter((o) => o.kind === "trigger");
  const found: Found[] = [];

  const tableRows = await query<{ n: string; kind: string; comment: string | null; columns: string[] }>(
    `SELECT t.n, c.relkind::text AS kind, obj_description(c.oid, 'pg_class') AS comment,
            array(SELECT a.attname || ' ' || format_type(a.atttypid, NULL) FROM pg_attribute a
                  WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1) AS columns
     FROM unnest($1::text[]) WITH ORDINALITY AS t(name, n)
     JOIN pg_class c ON c.relname = t.name AND c.relnamespace = current_schema()::regnamespace ORDER BY t.n`,
    [tables.map((o) => o.name)],
  );
  const written = [...new Set(tables.flatMap((o) => o.columns!.map(([, type]) => type)))];
  const typeOf = new Map(
    (
      await query<{ written: string; type: string }>(
        `SELECT t.written, format_type(to_regtype(t.written), NULL) AS type FROM unnest($1::text[]) AS t(written)`,
        [written],
      )
    ).map((r) => [r.written, r.type]),
  );
  for (const row of tableRows) {
    const object = tables[Number(row.n) - 1];
    const expected = object.columns!.map(([name, type]) => `${name} ${typeOf.get(type)}`).sort();
    const extra = row.columns.filter((c) => !expected.includes(c));
    const missing = expected.filter((c) => !row.columns.includes(c));
    found.push({
      object,
      kept:
        row.kind !== "r"
          ? "it is not a table, so it is the host's"
          : extra.length || missing.length
            ? `its columns are not those the module's migrations made (${[
                ...(extra.length ? [`not the module's: ${listed(extra)}`] : []),
                ...(missing.length ? [`missing: ${listed(missing)}`] : []),
              ].join("; ")}), so the host changed it`
            : row.comment !== object.comment
              ? "its comment is not the one the module's migrations wrote, so the host changed it"
              : undefined,
    });
  }

  const functionRows = await query<{ n: string; oid: string; body: string; users: string[] }>(
    `SELECT t.n, p.oid::text AS oid, p.prosrc AS body,
            array(SELECT d.classid::oid::text || ':' || d.objid::text || ' ' || pg_describe_object(d.classid, d.objid, 0)
                  FROM pg_depend d WHERE d.refclassid = 'pg_proc'::regclass AND d.refobjid = p.oid
                  AND d.deptype = 'n') AS users
     FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(name, args, n)
     JOIN pg_proc p ON p.oid = to_regprocedure(format('%I.%I(%s)', current_schema(), t.name, t.args)) ORDER BY t.n`,
    [functions.map((o) => o.function), functions.map((o) => o.argumentTypes)],
  );
  for (const row of functionRows) {
    const object = functions[Number(row.n) - 1];
    found.push({
      object,
      oid: row.oid,
      body: row.body,
      users: row.users.map((user) => ({ key: user.split(" ")[0], what: user.slice(user.indexOf(" ") + 1) })),
      kept:
        row.body === object.body
          ? undefined
          : "its body is not the one the module's migrations wrote, so the host changed it",
    });
  }

  const indexRows = await query<{ n: string; key: string; definition: string | null }>(
    `SELECT t.n, 'pg_class'::regclass::oid::text || ':' || c.oid::text AS key, pg_get_indexdef(c.oid) AS definition
     FROM unnest($1::text[]) WITH ORDINALITY AS t(name, n)
     JOIN pg_class c ON c.relname = t.name AND c.relnamespace = current_schema()::regnamespace ORDER BY t.n`,
    [indexes.map((o) => o.name)],
  );
  for (const row of indexRows) {
    const object = indexes[Number(row.n) - 1];
    const same =
      row.definition !== null && canonicalIndex(row.definition, schema) === canonicalIndex(object.definition!, schema);
    found.push({
      object,
      key: row.key,
      kept: same ? undefined : "its definition is not the one the module's migrations wrote, so it is the host's",
    });
  }

  const triggerRows = await query<{ n: string; key: string; runs: string }>(
    `SELECT t.n, 'pg_trigger'::regclass::oid::text || ':' || g.oid::text AS key, g.tgfoid::text AS runs
     FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(tbl, name, n)
     JOIN pg_trigger g ON g.tgname = t.name AND NOT g.tgisinternal
      AND g.tgrelid = to_regclass(format('%I.%I', current_schema(), t.tbl)) ORDER BY t.n`,
    [triggers.map((o) => o.table), triggers.map((o) => o.name.split(".")[1])],
  );
  for (const row of triggerRows) found.push({ object: triggers[Number(row.n) - 1], key: row.key, runs: row.runs });

  // Not the module's, whatever its shape: its migration is not recorded as the module's.
  for (const item of found) {
    const checksum = recorded.get(item.object.made);
    item.notMade = checksum === undefined || !isModules(item.object.made, checksum);
    if (checksum === undefined)
      item.kept = `the module's migration ${item.object.made}, which makes it, is not recorded as applied, so it is the host's`;
    else if (!isModules(item.object.made, checksum))
      item.kept = `the module's migration ${item.object.made}, which makes it, is recorded with another checksum, so it is the host's`;
  }
  keepWhatKeptObjectsNeed(found);

  const dropped = found.filter((item) => !item.kept);
  const order: MadeObject["kind"][] = ["trigger", "index", "table", "function"];
  const drops = order.flatMap((kind) =>
    dropped
      .filter((item) => item.object.kind === kind)
      .sort((a, b) => a.object.name.localeCompare(b.object.name))
      .map(({ object }) => ({ object: `${kind} ${object.name}`, statement: dropStatement(object, schema) })),
  );
  const kept = found
    .filter((item) => item.kept)
    .map(({ object, kept }) => `kept ${object.kind} ${object.name}: ${kept}.`);
  // A row stays while an object its migration made or changed stays; a migration that names no object of its own (it
  // acts on all of them, or on the host's tables) keeps its row while any such object stays.
  const stays = new Set(found.filter((item) => item.kept && !item.notMade).flatMap((item) => item.object.migrations));
  const named = new Set(objects.flatMap((o) => o.migrations));
  const modules = [...recorded].filter(([name, checksum]) => isModules(name, checksum)).map(([name]) => name);
  const goes = (name: string) => (named.has(name) ? !stays.has(name) : stays.size === 0);
  return {
    drops,
    kept,
    rows: modules.filter(goes).sort(),
    keptRows: modules.filter((name) => !goes(name)).sort(),
  };
}

/**
 * Until nothing changes: a trigger stays when the function it runs is not the module's one that goes; a function
 * stays while an object that stays uses it, or a function that stays names it; a table stays while such a function
 * names it (PostgreSQL records no dependency on what a function's body writes).
 */
function keepWhatKeptObjectsNeed(found: Found[]): void {
  const ofKind = (kind: MadeObject["kind"]) => found.filter((item) => item.object.kind === kind);
  for (let changed = true; changed;) {
    changed = false;
    const keep = (item: Found, why: string) => {
      item.kept = why;
      changed = true;
    };
    const goingKeys = new Set(found.filter((item) => !item.kept && item.key).map((item) => item.key));
    const keptBodies = ofKind("function").filter((item) => item.kept);
    const namedBy = (name: string) =>
      keptBodies.find((item) => new RegExp(String.raw`\b${name}\b`).test(item.body ?? ""))?.object.name;
    for (const item of ofKind("trigger").filter((t) => !t.kept)) {
      const fn = ofKind("function").find((f) => f.object.function === item.object.function);
      if (!fn || fn.oid !== item.runs)
        keep(item, `it runs another function than the module's ${item.object.function}, so it is the host's`);
      else if (fn.kept) keep(item, `the function it runs, ${fn.object.name}, stays`);
    }
    for (const item of ofKind("function").filter((f) => !f.kept)) {
      const user = item.users?.find((u) => !goingKeys.has(u.key));
      const by = namedBy(item.object.function!);
      if (user) keep(item, `${user.what}, which stays, uses it`);
      else if (by) keep(item, `the function ${by}, which stays, calls it`);
    }
    for (const item of ofKind("table").filter((t) => !t.kept)) {
      const by = namedBy(item.object.name);
      if (by) keep(item, `the function ${by}, which stays, writes or reads it`);
    }
  }
}

function dropStatement(object: MadeObject, schema: string): string {
  const qualified = (name: string) => `${quoted(schema)}.${quoted(name)}`;
  switch (object.kind) {
    case "trigger":
      return `DROP TRIGGER ${quoted(object.name.split(".")[1])} ON ${qualified(object.table!)}`;
    case "index":
      return `DROP INDEX ${qualified(object.name)}`;
    case "table":
      return `DROP TABLE ${qualified(object.name)}`;
    case "function":
      return `DROP FUNCTION ${qualified(object.function!)}(${object.argumentTypes})`;
  }
}

/**
 * An index's CREATE INDEX as the migration wrote it or as pg_get_indexdef gives it, in one form: no quotes, schema,
 * casts, default access method, parentheses, spaces or case.
 */
function canonicalIndex(statement: string, schema: string): string {
  return statement
    .replaceAll('"', "")
    .replace(/\bIF\s+NOT\s+EXISTS\b/i, "")
    .replaceAll(`${schema}.`, "")
    .replace(/\bUSING\s+btree\b/i, "")
    .replace(/::\w+(\[\])?/g, "")
    .replace(/[\s()]/g, "")
    .toLowerCase();
}

/** The plan as the uninstall prints it: what goes, then one line for each object kept. */
export function planLines(plan: DropPlan): string[] {
  const byKind = (["trigger", "index", "table", "function"] as const)
    .map(
      (kind) =>
        [
          kind,
          plan.drops.filter((d) => d.object.startsWith(`${kind} `)).map((d) => d.object.slice(kind.length + 1)),
        ] as const,
    )
    .filter(([, names]) => names.length)
    .map(([kind, names]) => `${kind === "index" ? "indexes" : `${kind}s`} ${names.join(", ")}`);
  const what = byKind.length ? `drop ${byKind.join("; ")}` : "drop nothing";
  const rows = plan.rows.length
    ? `delete the module's ${plan.rows.length} row${plan.rows.length === 1 ? "" : "s"} of _prisma_migrations`
    : "delete no row of _prisma_migrations";
  const keptRows = plan.keptRows.length
    ? ` The rows of ${listed(plan.keptRows)} stay in _prisma_migrations, as objects they made or changed stay.`
    : "";
  return [
    `- database: ${what}; ${rows}.${keptRows} The rows of the host's tables stay.`,
    ...plan.kept.map((sentence) => `- ${sentence}`),
  ];
}

/** Runs the plan's statements and deletes its rows, in the caller's transaction. */
export async function applyDrops(client: pg.Client, plan: DropPlan): Promise<void> {
  for (const { statement } of plan.drops) await client.query(statement);
  if (plan.rows.length)
    await client.query(`DELETE FROM "_prisma_migrations" WHERE migration_name = ANY($1)`, [plan.rows]);
}
