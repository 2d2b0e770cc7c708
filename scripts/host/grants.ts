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
