import { Prisma } from "@/lib/generated/prisma/client";

/**
 * The column of a Prisma field: its name in snake_case, as every field of prisma/schema.prisma maps it
 * (tests/database/schema-matches-migrations.db.test.ts checks each one).
 */
export function columnOf(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** `alias.column AS "field"` for each field, so rows come back keyed by Prisma field. */
export function selectFields(alias: string, fields: readonly string[]): Prisma.Sql {
  return Prisma.join(fields.map((field) => Prisma.raw(`${alias}.${columnOf(field)} AS "${field}"`)));
}
