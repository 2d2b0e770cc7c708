import { readFileSync } from "node:fs";
import path from "node:path";
import { getSchema } from "@mrleebo/prisma-ast";
import { migrationObjects } from "../../lib/runtime/migration-objects.mjs";
import type { HostNeeds } from "./check";
import { columnOf, fields, models, SCALARS, tableOf } from "./schema";

/** Read from the module's own prisma/schema.prisma and prisma/migrations, so it never disagrees with them. */
export function hostNeeds(moduleRoot: string): HostNeeds {
  const schema = getSchema(readFileSync(path.join(moduleRoot, "prisma/schema.prisma"), "utf8"));
  const tables: Record<string, string[]> = {};
  for (const model of models(schema)) {
    tables[tableOf(model)] = fields(model)
      .filter((f) => SCALARS.has(String(f.fieldType)))
      .map(columnOf);
  }
  const { migrations, triggers } = migrationObjects(path.join(moduleRoot, "prisma/migrations"));
  return { tables, migrations, triggers };
}
