import { readFileSync } from "node:fs";
import path from "node:path";
import type { Field } from "@mrleebo/prisma-ast";
import { migrationObjects } from "../../lib/db/migration-objects.mjs";
import type { HostNeeds } from "./check/check";
import { HOST_MODELS } from "./names-config";
import { columnFields, columnOf, models, parseSchema, tableOf } from "./check/prisma-names";
import { HOST_OWN_FIELDS } from "./schema";

/** A field's type as the module's schema writes it: `String`, `String?`, `String[]`. */
const typeOf = (field: Field) => `${String(field.fieldType)}${field.array ? "[]" : ""}${field.optional ? "?" : ""}`;

/**
 * Read from the module's own prisma/schema.prisma and prisma/migrations, so it never disagrees with them. The host's
 * tables are named by its lib/db/host-names.json, so only their fields are here, by the module's field names.
 */
export function hostNeeds(moduleRoot: string): HostNeeds {
  const schema = parseSchema(readFileSync(path.join(moduleRoot, "prisma/schema.prisma"), "utf8"));
  const tables: Record<string, string[]> = {};
  const fields = {} as HostNeeds["fields"];
  for (const model of models(schema)) {
    const hostModel = HOST_MODELS.find((name) => name === model.name);
    if (hostModel)
      fields[hostModel] = Object.fromEntries(
        columnFields(schema, model)
          .filter((f) => !HOST_OWN_FIELDS.has(`${model.name}.${f.name}`))
          .map((f) => [f.name, typeOf(f)]),
      );
    else tables[tableOf(model)] = columnFields(schema, model).map(columnOf);
  }
  const { migrations } = migrationObjects(path.join(moduleRoot, "prisma/migrations"));
  return { tables, fields, migrations };
}
