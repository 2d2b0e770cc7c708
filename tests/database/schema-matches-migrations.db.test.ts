import { readdir, readFile } from "node:fs/promises";
import { get_dmmf } from "@prisma/prisma-schema-wasm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/db";

/**
 * The migrations in prisma/migrations, applied by our runner, must build exactly
 * the database that prisma/schema.prisma describes: same tables, columns (type,
 * nullability, default present), primary keys, unique and normal indexes (Prisma's
 * names and column order) and foreign keys (Prisma's names and referential
 * actions). `prisma migrate diff` would say the same but needs the schema engine,
 * which this machine cannot download; this reads the schema with Prisma's own
 * parser (prisma-schema-wasm) instead.
 */

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: "scalar" | "object" | "enum";
  type: string;
  isList: boolean;
  isRequired: boolean;
  isId: boolean;
  isUnique: boolean;
  hasDefaultValue: boolean;
  nativeType: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
}
interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}
interface DmmfIndex {
  model: string;
  type: "id" | "unique" | "normal" | "fulltext";
  fields: { name: string; sortOrder?: "asc" | "desc" }[];
}

let db: TestDatabase;
let models: DmmfModel[];
let indexes: DmmfIndex[];

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  const schema = await readFile("prisma/schema.prisma", "utf8");
  const dmmf = JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [["schema.prisma", schema]] })));
  models = dmmf.datamodel.models;
  indexes = dmmf.datamodel.indexes;
});
afterAll(() => db.sql.end());

const tableOf = (model: DmmfModel) => model.dbName ?? model.name;
const columnOf = (model: DmmfModel, fieldName: string) => {
  const field = model.fields.find((f) => f.name === fieldName)!;
  return field.dbName ?? field.name;
};
const modelNamed = (name: string) => models.find((m) => m.name === name)!;

function columnType(field: DmmfField): string {
  const base: Record<string, string> = {
    String: "text",
    Int: "int4",
    Boolean: "bool",
    BigInt: "int8",
    Float: "float8",
    Bytes: "bytea",
  };
  if (field.type === "DateTime") {
    const [native, args] = field.nativeType ?? ["Timestamp", ["3"]];
    return `${native === "Timestamptz" ? "timestamptz" : "timestamp"}(${args[0] ?? 3})`;
  }
  return (field.isList ? "_" : "") + base[field.type];
}

describe("migrated database matches prisma/schema.prisma", () => {
  it("has exactly the schema's tables and columns, with their types, nullability and defaults", async () => {
    const expected = models.flatMap((model) =>
      model.fields
        .filter((f) => f.kind !== "object")
        .map((f) => ({
          table: tableOf(model),
          column: f.dbName ?? f.name,
          type: columnType(f),
          // Prisma creates scalar lists without NOT NULL.
          nullable: !f.isRequired || f.isList,
          hasDefault: f.hasDefaultValue,
        })),
    );
    const { rows } = await db.sql.query(`
      SELECT table_name AS table, column_name AS column,
             udt_name || CASE WHEN udt_name LIKE 'timestamp%' THEN '(' || datetime_precision || ')' ELSE '' END AS type,
             is_nullable = 'YES' AS nullable, column_default IS NOT NULL AS "hasDefault"
      FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations'`);
    const sort = (list: { table: string; column: string }[]) =>
      [...list].sort((a, b) => `${a.table}.${a.column}`.localeCompare(`${b.table}.${b.column}`));
    expect(sort(rows)).toEqual(sort(expected));
  });

  it("has exactly the schema's primary keys, unique and normal indexes, under Prisma's names", async () => {
    const expected = indexes.map((index) => {
      const model = modelNamed(index.model);
      const table = tableOf(model);
      const columns = index.fields.map((f) => columnOf(model, f.name));
      const name =
        index.type === "id"
          ? `${table}_pkey`
          : `${table}_${columns.join("_")}_${index.type === "unique" ? "key" : "idx"}`;
      const keys = index.fields.map((f) => `${columnOf(model, f.name)}${f.sortOrder === "desc" ? " DESC" : ""}`);
      const unique = index.type === "normal" ? "" : "UNIQUE ";
      return `CREATE ${unique}INDEX ${name} ON public.${table} USING btree (${keys.join(", ")})`;
    });
    // The one index schema.prisma cannot express (an expression index, migration 20261123120000_source_key):
    // host-added sources found by the key of their name.
    expected.push(
      "CREATE INDEX customers_source_key_idx ON public.customers USING btree (lead_intake_source_key(name), created_at, id) WHERE (kind = 'source'::text)",
    );
    const { rows } = await db.sql.query<{ def: string }>(`
      SELECT pg_get_indexdef(ix.indexrelid) AS def
      FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = current_schema() AND t.relname <> '_prisma_migrations'`);
    expect(rows.map((r) => r.def).sort()).toEqual(expected.sort());
  });

  it("has exactly the schema's foreign keys, with Prisma's names and referential actions", async () => {
    const expected = models.flatMap((model) =>
      model.fields
        .filter((f) => f.kind === "object" && f.relationFromFields?.length)
        .map((f) => {
          const target = modelNamed(f.type);
          const from = f.relationFromFields!.map((name) => columnOf(model, name));
          const to = f.relationToFields!.map((name) => columnOf(target, name));
          const onDelete = f.isRequired ? "RESTRICT" : "SET NULL";
          return `${tableOf(model)}_${from.join("_")}_fkey: FOREIGN KEY (${from.join(", ")}) REFERENCES ${tableOf(target)}(${to.join(", ")}) ON UPDATE CASCADE ON DELETE ${onDelete}`;
        }),
    );
    const { rows } = await db.sql.query<{ def: string }>(`
      SELECT conname || ': ' || pg_get_constraintdef(oid) AS def
      FROM pg_constraint WHERE contype = 'f' AND connamespace = current_schema()::regnamespace`);
    expect(rows.map((r) => r.def).sort()).toEqual(expected.sort());
  });

  it("records every migration in _prisma_migrations as prisma migrate deploy does", async () => {
    const { rows } = await db.sql.query(`
      SELECT migration_name, length(checksum) AS checksum_length, finished_at IS NOT NULL AS finished,
             rolled_back_at IS NULL AS not_rolled_back, applied_steps_count
      FROM _prisma_migrations ORDER BY migration_name`);
    const migrations = (await readdir("prisma/migrations", { withFileTypes: true })).filter((e) => e.isDirectory());
    expect(migrations.length).toBeGreaterThanOrEqual(3);
    expect(rows).toEqual(
      migrations
        .map((m) => m.name)
        .sort()
        .map((name) => ({
          migration_name: name,
          checksum_length: 64,
          finished: true,
          not_rolled_back: true,
          applied_steps_count: 1,
        })),
    );
  });
});
