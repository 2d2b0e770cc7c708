import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrate";
import { adminQuery, createTestDatabase, type TestDatabase } from "../helpers/db";
import { createEmptyDatabase } from "../helpers/host-install";
import { countDrift, sourceListVersion } from "../helpers/kept-counts";

/**
 * The module's SECURITY DEFINER functions (the referral-count trigger) run as their owner, so their search_path names
 * the schema they live in and then pg_temp, last: otherwise PostgreSQL searches pg_temp first, and a role that may
 * write referrals could make the owner's trigger write into a temporary table of its own.
 */
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
});

afterAll(() => db.sql.end());

/** Each SECURITY DEFINER function in the schema the connection's tables live in, with its schema and settings. */
async function definerFunctions(sql: pg.Pool): Promise<{ name: string; schema: string; config: string[] | null }[]> {
  const { rows } = await sql.query(
    `SELECT p.proname AS name, n.nspname AS schema, p.proconfig AS config
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE p.prosecdef AND n.nspname = current_schema() ORDER BY 1`,
  );
  return rows;
}

function expectSearchPathEndingInPgTemp(functions: { name: string; schema: string; config: string[] | null }[]): void {
  expect(functions.map((f) => f.name)).toContain("lead_intake_count_referrals");
  for (const { name, schema, config } of functions) {
    expect(
      config?.filter((setting) => setting.startsWith("search_path=")),
      name,
    ).toEqual([`search_path=${schema}, pg_temp`]);
  }
}

describe("the module's SECURITY DEFINER functions", () => {
  it("each set search_path to their own schema, then pg_temp last", async () => {
    expectSearchPathEndingInPgTemp(await definerFunctions(db.sql));
  });

  it("name the schema the module was installed into when that is not public", async () => {
    const host = await createEmptyDatabase();
    try {
      await host.sql.query("CREATE SCHEMA crm");
      await adminQuery(`ALTER DATABASE "${host.name}" SET search_path = crm`);
      await host.sql.end();
      await migrate(host.url);
      host.sql = new pg.Pool({ connectionString: host.url, max: 1 });
      const functions = await definerFunctions(host.sql);
      expect(new Set(functions.map((f) => f.schema))).toEqual(new Set(["crm"]));
      expect(functions.length).toBeGreaterThan(1);
      expectSearchPathEndingInPgTemp(functions);
    } finally {
      await host.sql.end();
    }
  });

  it("keep counting into the module's tables when a writer of referrals and customers shadows them with temporary ones", async () => {
    const versionBefore = await sourceListVersion(db.sql);
    const role = `host_app_${randomBytes(4).toString("hex")}`;
    await adminQuery(`CREATE ROLE ${role} LOGIN PASSWORD 'host'`);
    // A host application role: it writes the host's tables and, like every role by default, may create temporary
    // tables.
    await db.sql.query(`GRANT USAGE ON SCHEMA public TO ${role};
      GRANT SELECT, INSERT ON customers, referrals TO ${role};
      GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role};
      INSERT INTO customers (id, kind, name) VALUES ('shadowed-source', 'source', 'Shadowed Source')`);
    const hostApp = new pg.Client({ connectionString: db.url.replace(/\/\/[^@]*@/, `//${role}:host@`) });
    await hostApp.connect();
    try {
      await hostApp.query(`CREATE TEMPORARY TABLE lead_referrer_counts (customer_id text, slot int, total int, PRIMARY KEY (customer_id, slot));
        CREATE TEMPORARY TABLE lead_source_lead_counts (slot int PRIMARY KEY, total int);
        CREATE TEMPORARY TABLE lead_source_lead_blocks (block int, slot int, total int, PRIMARY KEY (block, slot));
        CREATE TEMPORARY TABLE lead_source_list_versions (slot int PRIMARY KEY, changes bigint, last_transaction bigint)`);
      await hostApp.query(
        "INSERT INTO referrals (referrer_customer_id, lead_name, status) VALUES ('shadowed-source', 'Host Written', 'Pending')",
      );
      await hostApp.query(`INSERT INTO referrals (referrer_customer_id, lead_name, status)
        SELECT 'shadowed-source', 'Host Written ' || g, 'Pending' FROM generate_series(1, 3) g`);
      await hostApp.query("INSERT INTO customers (id, kind, name) VALUES ('shadowed-2', 'source', 'Shadowed Two')");
      const { rows: shadow } = await hostApp.query(
        `SELECT (SELECT count(*) FROM pg_temp.lead_referrer_counts) + (SELECT count(*) FROM pg_temp.lead_source_lead_counts)
              + (SELECT count(*) FROM pg_temp.lead_source_lead_blocks) + (SELECT count(*) FROM pg_temp.lead_source_list_versions) AS n`,
      );
      expect(Number(shadow[0].n)).toBe(0);
    } finally {
      await hostApp.end();
    }
    const { rows } = await db.sql.query(
      "SELECT coalesce(sum(total), 0)::int AS kept FROM lead_referrer_counts WHERE customer_id = 'shadowed-source'",
    );
    expect(rows[0].kept).toBe(4);
    expect(await countDrift(db.sql)).toEqual([]);
    expect(await sourceListVersion(db.sql)).toBe(versionBefore + 2);
  });
});
