import { readFileSync } from "node:fs";
import path from "node:path";
import { migrationObjects } from "../../lib/db/migration-objects.mjs";
import type { HostNeeds } from "./check";
import { columnFields, columnOf, models, parseSchema, tableOf } from "./prisma-names";
import { HOST_OWN_FIELDS } from "./schema";

/** Read from the module's own prisma/schema.prisma and prisma/migrations, so it never disagrees with them. */
export function hostNeeds(moduleRoot: string): HostNeeds {
  const schema = parseSchema(readFileSync(path.join(moduleRoot, "prisma/schema.prisma"), "utf8"));
  const tables: Record<string, string[]> = {};
  for (const model of models(schema)) {
    tables[tableOf(model)] = columnFields(schema, model)
      .filter((f) => !HOST_OWN_FIELDS.has(`${model.name}.${f.name}`))
      .map(columnOf);
  }
  const { migrations, triggers } = migrationObjects(path.join(moduleRoot, "prisma/migrations"));
  return { tables, migrations, triggers };
}
