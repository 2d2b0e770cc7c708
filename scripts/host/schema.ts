import { getSchema, printSchema, type Block, type Field, type Model, type Schema } from "@mrleebo/prisma-ast";
import { validate } from "@prisma/prisma-schema-wasm";

/**
 * The module's Prisma models merged into a host's schema, on the parsed schemas (never by editing text): a model
 * the host lacks is added whole; a host model of the same table keeps everything of its own and gets the module's
 * scalar fields it lacks, and the relation fields that point at a model the module adds. The module needs no
 * relation between the host's own models (it reads and writes them with SQL), so those stay the host's choice.
 */
export interface SchemaMerge {
  schema: string;
  /** Each model and field added, as `Model` or `Model.field`. */
  added: string[];
  /** Why the merge cannot be done; nothing is written when there is one. */
  conflicts: string[];
}

export const SCALARS = new Set(["String", "Int", "BigInt", "Float", "Decimal", "Boolean", "DateTime", "Json", "Bytes"]);

export const models = (schema: Schema) => schema.list.filter((block): block is Model => block.type === "model");
export const fields = (model: Model) => model.properties.filter((p): p is Field => p.type === "field");
const unquote = (value: unknown) => (typeof value === "string" ? value.replace(/^"|"$/g, "") : undefined);

/** The table a model maps to: its `@@map`, else its name. */
export function tableOf(model: Model): string {
  for (const p of model.properties) {
    if (p.type === "attribute" && p.kind === "object" && p.name === "map")
      return unquote(p.args[0]?.value) ?? model.name;
  }
  return model.name;
}

/** The column a field maps to: its `@map`, else its name. */
export function columnOf(field: Field): string {
  const map = field.attributes?.find((a) => a.name === "map" && !a.group);
  return unquote(map?.args?.[0]?.value) ?? field.name;
}

const typeOf = (field: Field) => `${String(field.fieldType)}${field.array ? "[]" : ""}`;

export function mergeSchemas(hostText: string, moduleText: string): SchemaMerge {
  const host = getSchema(hostText);
  const ours = getSchema(moduleText);
  const added: string[] = [];
  const conflicts: string[] = [];
  const hostByTable = new Map(models(host).map((m) => [tableOf(m), m]));
  const moduleAdded = new Set(
    models(ours)
      .filter((m) => !hostByTable.has(tableOf(m)))
      .map((m) => m.name),
  );

  for (const wanted of models(ours)) {
    const existing = hostByTable.get(tableOf(wanted));
    if (!existing) {
      const taken = models(host).find((m) => m.name === wanted.name);
      if (taken)
        conflicts.push(
          `model ${wanted.name} of the host maps table ${tableOf(taken)}; ` +
            `the module needs that name for ${tableOf(wanted)}`,
        );
      host.list.push({ type: "break" } as Block, wanted);
      added.push(wanted.name);
      continue;
    }
    if (existing.name !== wanted.name) {
      conflicts.push(`model ${existing.name} maps table ${tableOf(wanted)}; the module needs it named ${wanted.name}`);
      continue;
    }
    for (const field of fields(wanted)) {
      const own = fields(existing).find((f) => f.name === field.name);
      const scalar = SCALARS.has(String(field.fieldType));
      if (own) {
        if (scalar && (columnOf(own) !== columnOf(field) || typeOf(own) !== typeOf(field))) {
          conflicts.push(
            `${wanted.name}.${field.name} is ${typeOf(own)} on column ${columnOf(own)} in the host's schema; ` +
              `the module needs ${typeOf(field)} on column ${columnOf(field)}`,
          );
        }
        continue;
      }
      if (scalar || moduleAdded.has(String(field.fieldType))) {
        const lastField = existing.properties.reduce((last, p, i) => (p.type === "field" ? i : last), -1);
        existing.properties.splice(lastField + 1, 0, field);
        added.push(`${wanted.name}.${field.name}`);
      }
    }
  }
  const schema = printSchema(host);
  if (conflicts.length === 0) {
    try {
      validate(JSON.stringify({ prismaSchema: [["schema.prisma", schema]], noColorErrors: true }));
    } catch (error) {
      const message = String((JSON.parse(String((error as Error).message ?? error)) as { message?: string }).message);
      conflicts.push(
        `the merged schema is not valid: ${message
          .replace(/\u001b\[[0-9;]*m/g, "")
          .split("\n")
          .slice(0, 6)
          .join(" ")}`,
      );
    }
  }
  return { schema, added, conflicts };
}

/** The `output` of the schema's `prisma-client` generator (relative to the schema's folder), or undefined. */
export function clientOutputOf(schemaText: string): string | undefined {
  for (const block of getSchema(schemaText).list) {
    if (block.type !== "generator") continue;
    const value = (key: string) => {
      const assignment = block.assignments.find((a) => a.type === "assignment" && a.key === key);
      return assignment?.type === "assignment" ? unquote(assignment.value) : undefined;
    };
    if (value("provider") === "prisma-client") return value("output");
  }
  return undefined;
}
