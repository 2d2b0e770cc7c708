import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { get_dmmf } from "@prisma/prisma-schema-wasm";
import { afterAll, describe, expect, it } from "vitest";
import type { HostNames } from "@/lib/db/host-names";
import { planInstall, type InstallPlan } from "@/scripts/host/plan-install";
import { openHost } from "@/scripts/host/workspace";
import { ROOT } from "@/tests/helpers/source-files";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { migrateMappedHost } from "../helpers/mapped-host-migrations";

/**
 * The host's own `prisma migrate dev` finds nothing to change on the module's indexes: after the install, every index
 * the module's migrations put on the host's tables is an `@@index` of the host's merged schema, and each one it is not
 * is one Prisma cannot express, named in docs/host-guide.md. `prisma migrate diff` would say the same but needs the
 * schema engine, which this machine cannot download: this compares the database's indexes with the schema as Prisma's
 * own parser (prisma-schema-wasm) reads it, both ways, on a host in Prisma's default naming and one with names of its
 * own.
 */

const FIXTURES = path.join(ROOT, "tests/fixtures");
const GUIDE = readFileSync(path.join(ROOT, "docs/host-guide.md"), "utf8");
/** The module's indexes on host tables that no `@@index` can express, by the module's names, and their table. */
const INEXPRESSIBLE = [{ name: "customers_source_key_idx", table: "customers", model: "Customer" as const }];

interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: { name: string; dbName?: string | null }[];
}
interface DmmfIndex {
  model: string;
  type: "id" | "unique" | "normal" | "fulltext";
  fields: { name: string; sortOrder?: "asc" | "desc" }[];
}

/** Each normal index of the host's models in the merged schema, as pg_indexes gives it without quotes. */
function schemaIndexes(schema: string, names: HostNames): string[] {
  const dmmf = JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [["schema.prisma", schema]] }))) as {
    datamodel: { models: DmmfModel[]; indexes: DmmfIndex[] };
  };
  const hostTables = new Set(Object.values(names).flatMap((model) => (model ? [model.table] : [])));
  return dmmf.datamodel.indexes.flatMap((index) => {
    const model = dmmf.datamodel.models.find((m) => m.name === index.model)!;
    const table = model.dbName ?? model.name;
    if (index.type !== "normal" || !hostTables.has(table)) return [];
    const column = (name: string) => {
      const field = model.fields.find((f) => f.name === name)!;
      return field.dbName ?? field.name;
    };
    const columns = index.fields.map((f) => column(f.name));
    const keys = index.fields.map((f) => `${column(f.name)}${f.sortOrder === "desc" ? " DESC" : ""}`);
    return [`CREATE INDEX ${table}_${columns.join("_")}_idx ON public.${table} USING btree (${keys.join(", ")})`];
  });
}

describe.each(["host-app-default-names", "host-app-own-names"])(
  "the module's indexes on the tables of %s",
  (overlay) => {
    let folder: string;
    let db: TestDatabase;
    let plan: InstallPlan;
    let hostOwn: Set<string>;
    let made: { name: string; def: string }[];

    afterAll(async () => {
      await db?.sql.end();
      if (folder) rmSync(folder, { recursive: true, force: true });
    });

    it("are those its migrations make once the host's own migration has run", async () => {
      folder = mkdtempSync(path.join(tmpdir(), "lead-intake-indexes-"));
      cpSync(path.join(FIXTURES, "host-app"), folder, { recursive: true });
      cpSync(path.join(FIXTURES, overlay), folder, { recursive: true });
      plan = planInstall(openHost(folder)) as InstallPlan;
      db = await createTestDatabase({ template: "template0", use: false });
      await db.sql.query(readFileSync(path.join(folder, "prisma/migrations/20250301000000_crm/migration.sql"), "utf8"));
      const tables = Object.values(plan.names).flatMap((model) => (model ? [model.table] : []));
      const indexes = async () =>
        (
          await db.sql.query<{ name: string; def: string; primary: boolean }>(
            `SELECT i.indexname AS name, replace(i.indexdef, '"', '') AS def, x.indisprimary AS primary
           FROM pg_indexes i JOIN pg_class c ON c.relname = i.indexname AND c.relnamespace = i.schemaname::regnamespace
           JOIN pg_index x ON x.indexrelid = c.oid
           WHERE i.schemaname = current_schema() AND i.tablename = ANY ($1)`,
            [tables],
          )
        ).rows;
      hostOwn = new Set((await indexes()).map((index) => index.name));
      await migrateMappedHost(db, plan.names);
      made = (await indexes()).filter((index) => !index.primary && !hostOwn.has(index.name));
      expect(made.length).toBeGreaterThan(0);
    });

    it("are each an @@index of the merged schema, or one the guide names as inexpressible, and no other", () => {
      const schema = String(plan.writes.get("prisma/schema.prisma"));
      const inexpressible = INEXPRESSIBLE.map(({ name, table, model }) => ({
        name: name.replace(table, plan.names[model]!.table),
        module: name,
      }));
      const declared = schemaIndexes(schema, plan.names).filter((def) => !hostOwn.has(def.split(" ")[2]!));
      expect(declared.length).toBe(4);
      const expressible = made.filter((index) => !inexpressible.some(({ name }) => name === index.name));
      expect(expressible.map((index) => index.def).sort()).toEqual(declared.sort());
      // The rest: the listed ones, each there, an expression index, and named in the guide's paragraph on them.
      expect(made.filter((index) => !expressible.includes(index)).map((index) => index.name)).toEqual(
        inexpressible.map(({ name }) => name),
      );
      for (const { name, module } of inexpressible) {
        expect(made.find((index) => index.name === name)?.def).toMatch(/\(lead_intake_source_key\(/);
        const paragraph = GUIDE.split("\n\n").find(
          (p) => p.includes(`\`${module}\``) && p.includes("prisma migrate dev"),
        );
        expect(paragraph, `a paragraph of the guide on ${module} and prisma migrate dev`).toBeDefined();
      }
    });
  },
);
