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
