import { getSchema, PrismaParser, VisitorClassFactory, type Field, type Model, type Schema } from "@mrleebo/prisma-ast";

/** How a Prisma schema names the database: the tables of its models and the columns of their fields. */

/** Parsed with each block's and field's line, so that an edit can leave every other line of the text as it was. */
export function parseSchema(text: string): Schema {
  const parser = new PrismaParser({ nodeLocationTracking: "full" });
  const Visitor = VisitorClassFactory(parser);
  return getSchema(text, { parser, visitor: new Visitor(parser) });
}

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

/** The fields of a model that are columns: all but relations (a field whose type is a model or composite type). */
export function columnFields(schema: Schema, model: Model): Field[] {
  const objects = new Set(
    schema.list.flatMap((b) => (b.type === "model" || b.type === "type" || b.type === "view" ? [b.name] : [])),
  );
  return fields(model).filter((f) => !objects.has(String(f.fieldType)));
}

/** A field of an index, descending where its `sort: Desc` says so. */
export interface IndexKey {
  field: string;
  desc: boolean;
}

/** A model's `@@index` attributes: each one's fields in order, and its line (from 0). */
export function indexesOf(model: Model): { keys: IndexKey[]; line: number }[] {
  return model.properties.flatMap((p) => {
    if (p.type !== "attribute" || p.kind !== "object" || p.name !== "index") return [];
    const list = p.args?.[0]?.value as { type?: string; args?: unknown[] } | undefined;
    if (list?.type !== "array") return [];
    const keys = (list.args ?? []).map((arg): IndexKey => {
      if (typeof arg === "string") return { field: arg, desc: false };
      const call = arg as { name: string; params?: { type: string; key?: string; value?: unknown }[] };
      const desc = (call.params ?? []).some((q) => q.type === "keyValue" && q.key === "sort" && q.value === "Desc");
      return { field: call.name, desc };
    });
    return [{ keys, line: (p.location?.startLine ?? 1) - 1 }];
  });
}

/** An index as a schema line declares it, without its indentation: `@@index([referrerCustomerId, id(sort: Desc)])`. */
export const indexText = (keys: IndexKey[]) =>
  `@@index([${keys.map((k) => (k.desc ? `${k.field}(sort: Desc)` : k.field)).join(", ")}])`;
