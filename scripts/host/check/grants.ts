// host:check's lines on the grants of the role in DATABASE_URL (docs/host-guide.md, "Grants").
import type pg from "pg";
import { FEATURES, missingGrants, missingMigrationGrants, type RowsOf } from "@/lib/db/grants";
import { rateLimitsOf } from "@/lib/settings.mjs";

type Line = ["ok" | "FAIL" | "note", string];

/**
 * One line per feature: FAIL when creating leads or listing lacks a grant, or when a configured rate limit cannot be
 * counted (a limit that is not set only gets a note); with migrations pending, FAIL when the role cannot apply them
 * (they may alter any of the schema's `tables`).
 */
export async function grantLines(client: pg.Client, migrationsPending: boolean, tables: string[]): Promise<Line[]> {
  const rowsOf: RowsOf = async <Row>(text: string, values: unknown[]) =>
    (await client.query(text, values)).rows as Row[];
  const missing = await missingGrants(rowsOf, FEATURES);
  const limited = Object.keys(rateLimitsOf(process.env)).length > 0;
  const lines: Line[] = FEATURES.map((feature) => {
    const lacking = missing.filter((m) => m.feature === feature).map((m) => m.grant);
    if (lacking.length === 0) return ["ok", `grants for ${feature}: held`];
    const text = `grants for ${feature}: the role lacks ${lacking.join(", ")}`;
    if (feature !== "rate limits") return ["FAIL", text];
    return limited
      ? ["FAIL", `${text}, so the configured rate limit cannot be counted`]
      : ["note", `${text} (needed only when LEADS_RATE_LIMIT_CREATE or LEADS_RATE_LIMIT_READ is set)`];
  });
  if (migrationsPending) {
    const lacking = await missingMigrationGrants(rowsOf, tables);
    lines.push(
      lacking.length
        ? ["FAIL", `grants for migrations: the role lacks ${lacking.join(", ")}, so the pending ones cannot be applied`]
        : ["ok", "grants for migrations: held"],
    );
  }
  return lines;
}

/**
 * One note for each function in the schema named like the module's (`lead_intake_*`) that is not one of `own` (the
 * module's, by full signature) and lacks EXECUTE for PUBLIC, with the GRANT that gives it back: a migration of the
 * module revoked it from every function of that prefix, and only the host knows whether it had revoked it itself.
 */
export async function hostFunctionLines(
  client: pg.Client,
  own: { function?: string; argumentTypes?: string }[],
): Promise<Line[]> {
  const { rows } = await client.query<{ signature: string }>(
    `SELECT p.oid::regprocedure::text AS signature FROM pg_proc p
     WHERE p.pronamespace = current_schema()::regnamespace AND p.proname LIKE 'lead\\_intake\\_%'
       AND NOT has_function_privilege('public', p.oid, 'EXECUTE')
       AND NOT EXISTS (SELECT FROM unnest($1::text[], $2::text[]) AS o(name, args)
                       WHERE to_regprocedure(format('%I.%I(%s)', current_schema(), o.name, o.args)) = p.oid)
     ORDER BY 1`,
    [own.map((o) => o.function), own.map((o) => o.argumentTypes)],
  );
  return rows.map(({ signature }) => [
    "note",
    `functions: the host's ${signature} lacks EXECUTE for PUBLIC, which a migration of the module revokes from ` +
      `every lead_intake_* function; unless the host revoked it itself, give it back: ` +
      `GRANT EXECUTE ON FUNCTION ${signature} TO PUBLIC;`,
  ]);
}
