import { describe, expect, it } from "vitest";
import { readMigrations } from "@/lib/db/migrate";
import { renderMigration } from "@/scripts/host/render-migration";
import { HOST_NAMES as OWN_NAMES } from "@/lib/db/host-names";
import { MAPPED_HOST } from "@/tests/helpers/mapped-host";

/** The module's migrations rendered with a host's names (scripts/host/render-migration.ts). */
describe("a module migration rendered with a host's names", async () => {
  const migrations = await readMigrations();
  const text = (name: string) => migrations.find((m) => m.name.endsWith(name))!.sql;

  it("is the identical text with the module's own names, so every checksum holds", () => {
    expect(migrations.length).toBeGreaterThan(10);
    for (const { name, sql } of migrations) expect(renderMigration(sql, OWN_NAMES, OWN_NAMES), name).toBe(sql);
  });

  it("names the host's tables, columns and indexes, in identifiers and in string literals", () => {
    const leadIntake = renderMigration(text("_lead_intake"), OWN_NAMES, MAPPED_HOST);
    expect(leadIntake).toContain(`CREATE INDEX IF NOT EXISTS "Contact_kind_idx" ON "Contact"("kind");`);
    expect(leadIntake).toContain(
      `CREATE INDEX IF NOT EXISTS "Deal_referrerCustomerId_id_idx" ON "Deal"("referrerCustomerId", "id" DESC);`,
    );
    expect(leadIntake).toContain(`table_name = 'Deal' AND column_name = 'assignedAgentId'`);
    expect(leadIntake).toContain(`REFERENCES "Contact"("id")`);
    expect(leadIntake).toContain(`ON "ActivityLog"("dealId")`);
    const statementCounts = renderMigration(text("_statement_counts"), OWN_NAMES, MAPPED_HOST);
    expect(statementCounts).toContain(`to_regclass('"Deal"')`);
    expect(statementCounts).toContain(`OLD."fullName", OLD."sourceType"`);
    const sourceKey = renderMigration(text("_source_key"), OWN_NAMES, MAPPED_HOST);
    expect(sourceKey).toContain(`ON "Contact" ("lead_intake_source_key"("fullName"), "createdAt", "id")`);
    // Comments are kept: only names change. The host_tables migration is never a host's: it creates the tables.
    for (const { sql } of migrations.filter((m) => !m.name.endsWith("_host_tables"))) {
      const comments = (s: string) => s.split("\n").filter((line) => line.trimStart().startsWith("--"));
      expect(comments(renderMigration(sql, OWN_NAMES, MAPPED_HOST))).toEqual(comments(sql));
    }
  });

  it("leaves out the statements on a table the host lacks", () => {
    const rendered = renderMigration(text("_lead_intake"), OWN_NAMES, { ...MAPPED_HOST, AuditEntry: null });
    expect(rendered).not.toContain("audit_entries");
    expect(rendered).toContain(`"Deal_referrerCustomerId_id_idx"`);
  });

  it("renames a column by the tables of its own statement, so two tables may map one column differently", () => {
    const names = structuredClone(MAPPED_HOST);
    names.Customer.columns.name = "fullName";
    names.User.columns.name = "displayName";
    const hostTables = renderMigration(text("_host_tables"), OWN_NAMES, names);
    expect(hostTables).toMatch(/CREATE TABLE IF NOT EXISTS "Contact" \([^;]*"fullName" TEXT NOT NULL/);
    expect(hostTables).toMatch(/CREATE TABLE IF NOT EXISTS "Member" \([^;]*"displayName" TEXT NOT NULL/);
  });

  it("refuses a column name the tables one statement names map to different host columns", () => {
    const names = structuredClone(MAPPED_HOST);
    names.Referral.columns.createdAt = "openedAt";
    expect(() => renderMigration(`SELECT "created_at" FROM "customers", "referrals";`, OWN_NAMES, names)).toThrow(
      /created_at .*createdAt and openedAt/,
    );
  });
});
