import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Migration } from "@/lib/db/migrate";
import { planDrops } from "@/scripts/host/drop-plan";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { MAPPED_HOST_RENAMES, MAPPED_HOST_TABLES, RENAMED_MAPPED_HOST } from "../helpers/mapped-host";
import { migrateMappedHost, moveMappedHost } from "../helpers/mapped-host-migrations";

/**
 * A host whose names change after the module's migrations ran: the migrations stay as applied, and one more moves the
 * module's functions, triggers and own indexes to the new names (scripts/host/names-migration.ts). The database then
 * holds what a host installed with the new names from the start holds, and the uninstall takes it all out.
 */
let moved: TestDatabase;
let fresh: TestDatabase;
let applied: Migration[];

/** The host's indexes on its tables, but those on the module's functions. */
async function hostIndexes(db: TestDatabase): Promise<string[]> {
  const { rows } = await db.sql.query<{ definition: string }>(
    `SELECT indexdef AS definition FROM pg_indexes WHERE schemaname = current_schema()
     AND indexdef NOT LIKE '%lead_intake_%' AND tablename IN ('Contact', 'Member', 'Opportunity', 'ActivityLog')
     ORDER BY 1`,
  );
  return rows.map((row) => row.definition);
}

/** The module's functions, the triggers and the indexes on its functions, as PostgreSQL describes them. */
async function moduleObjects(db: TestDatabase) {
  const { rows: functions } = await db.sql.query(
    `SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args, p.prosrc, p.proconfig, p.prosecdef,
            array(SELECT a.privilege_type || ' ' || pg_get_userbyid(a.grantee) FROM aclexplode(p.proacl) a ORDER BY 1)
              AS grants
     FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace AND p.proname LIKE 'lead\\_intake\\_%'
     ORDER BY 1, 2`,
  );
  const { rows: triggers } = await db.sql.query(
    `SELECT c.relname, t.tgname, pg_get_triggerdef(t.oid) AS definition
     FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal ORDER BY 1, 2`,
  );
  const { rows: indexes } = await db.sql.query(
    `SELECT pg_get_indexdef(i.indexrelid) AS definition FROM pg_index i
     JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = current_schema()::regnamespace
     AND pg_get_indexdef(i.indexrelid) LIKE '%lead_intake_%' ORDER BY 1`,
  );
  return { functions, triggers, indexes };
}

let hostIndexesBefore: string[];

beforeAll(async () => {
  [moved, fresh] = await Promise.all([
    createTestDatabase({ template: "template0", use: false }),
    createTestDatabase({ template: "template0", use: false }),
  ]);
  await fresh.sql.query(MAPPED_HOST_TABLES + MAPPED_HOST_RENAMES);
  hostIndexesBefore = await hostIndexes(fresh);
  await migrateMappedHost(fresh, RENAMED_MAPPED_HOST);
  applied = await moveMappedHost(moved);
}, 120_000);

afterAll(async () => {
  await Promise.all([moved?.sql.end(), fresh?.sql.end()]);
});

describe("a change of the host's names after the module's migrations ran", () => {
  it("leaves the module's objects as a host with the new names from the start has them", async () => {
    const [after, expected] = await Promise.all([moduleObjects(moved), moduleObjects(fresh)]);
    expect(after.triggers.length).toBeGreaterThan(0);
    expect(after.indexes.length).toBeGreaterThan(0);
    expect(after).toEqual(expected);
  });

  it("drops none of the host's indexes: those its schema declares follow its own migration", async () => {
    // Beside the host's own (the fresh host's before the module), the indexes the module's migrations add with the
    // names of their day.
    const indexes = await hostIndexes(moved);
    expect(indexes).toEqual(expect.arrayContaining(hostIndexesBefore));
    expect(indexes.length).toBe((await hostIndexes(fresh)).length);
  });

  it("is taken out whole by the uninstall's plan, the names migration's row with the others", async () => {
    const reader = new pg.Client({ connectionString: moved.url });
    await reader.connect();
    try {
      const asWritten = new Map(applied.map((migration) => [migration.name, migration.checksum]));
      const plan = await planDrops(reader, "prisma/migrations", RENAMED_MAPPED_HOST, asWritten);
      expect(plan.kept.join("\n")).toBe("");
      expect(plan.keptRows).toEqual([]);
      expect(plan.rows).toEqual(applied.map((migration) => migration.name).sort());
      expect(plan.drops.map((drop) => drop.object)).toEqual(
        expect.arrayContaining(["trigger Opportunity.lead_intake_count_referral_inserts"]),
      );
    } finally {
      await reader.end();
    }
  });
});
