import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, post } from "../helpers/api";
import { adminQuery, createTestDatabase, type TestDatabase } from "../helpers/db";
import { countDrift, sourceListVersion } from "../helpers/kept-counts";
import { validLead } from "../helpers/lead";

/**
 * The module's functions lend no privilege. A login with no grants cannot attach its SECURITY DEFINER trigger
 * functions to a table of its own (no EXECUTE for PUBLIC); attached by a role that was granted EXECUTE, they do nothing
 * on any table but the one they were made for; and no session setting holds the sources list version still. After
 * each attack every kept count equals count(*), the listing's total is the real one, and the version is where the
 * changes put it.
 */
let db: TestDatabase;
let sourceId: string;

/** The two pure functions that run as their caller and read nothing: an index of the host's calls one. */
const PUBLIC_FUNCTIONS = ["lead_intake_lead_block_size()", "lead_intake_source_key(text)"];

beforeAll(async () => {
  db = await createTestDatabase();
  for (let i = 0; i < 5; i++) await post(validLead({ leadName: `Guarded ${i}`, referrer: "Guarded Source" }));
  const { rows } = await db.sql.query<{ id: string }>("SELECT id FROM customers WHERE name = 'Guarded Source'");
  sourceId = rows[0].id;
});
afterAll(() => db.sql.end());

/** A new login role, with the given grants (none by default), and a connection as it. */
async function connectAs(grants = ""): Promise<pg.Client> {
  const role = `attacker_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE ROLE ${role} LOGIN PASSWORD 'attacker'`);
  if (grants) await db.sql.query(grants.replaceAll("{role}", role));
  const client = new pg.Client({ connectionString: db.url.replace(/\/\/[^@]*@/, `//${role}:attacker@`) });
  await client.connect();
  return client;
}

async function expectCountsIntact(): Promise<void> {
  expect(await countDrift(db.sql)).toEqual([]);
  const { rows } = await db.sql.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM referrals r JOIN customers c ON c.id = r.referrer_customer_id AND c.kind = 'source'",
  );
  expect(rows[0].n).toBeGreaterThan(0);
  const listed = await call("GET", "/api/leads");
  expect(listed.status).toBe(200);
  expect(listed.body.pagination.total).toBe(rows[0].n);
}

const TRIGGER_FUNCTIONS = ["lead_intake_count_referrals", "lead_intake_count_source_changes"];

/** Attaches the given trigger functions of the module to a temporary table and fires every event on it. */
async function attachAndFire(client: pg.Client, table: string, functions = TRIGGER_FUNCTIONS): Promise<void> {
  await client.query(
    `CREATE TEMPORARY TABLE ${table} (id integer, referrer_customer_id text, kind text, name text, source_type text)`,
  );
  for (const fn of functions) {
    await client.query(`
      CREATE TRIGGER ${fn}_t AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION public.${fn}();
      CREATE TRIGGER ${fn}_i AFTER INSERT ON ${table} REFERENCING NEW TABLE AS lead_intake_new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION public.${fn}();
      CREATE TRIGGER ${fn}_d AFTER DELETE ON ${table} REFERENCING OLD TABLE AS lead_intake_old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION public.${fn}()`);
  }
  await client.query(
    `INSERT INTO ${table} SELECT g, $1, 'source', 'Forged ' || g, 'ads' FROM generate_series(1, 50) g`,
    [sourceId],
  );
  await client.query(`DELETE FROM ${table}`);
  await client.query(
    `INSERT INTO ${table} SELECT g, $1, 'source', 'Forged ' || g, 'ads' FROM generate_series(1, 50) g`,
    [sourceId],
  );
  await client.query(`TRUNCATE ${table}`);
}

describe("the module's functions", () => {
  it("grant EXECUTE to PUBLIC on none in the module's schema but the two pure ones, whichever migration added it", async () => {
    const { rows } = await db.sql.query<{ fn: string; definer: boolean; volatility: string; public: boolean }>(
      `SELECT p.oid::regprocedure::text AS fn, p.prosecdef AS definer, p.provolatile AS volatility,
              EXISTS (SELECT 1 FROM aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                      WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE') AS public
       FROM pg_proc p
       WHERE p.proname LIKE 'lead\\_intake\\_%'
         AND p.pronamespace = (SELECT pronamespace FROM pg_proc WHERE oid = 'lead_intake_count_referrals()'::regprocedure)
       ORDER BY 1`,
    );
    expect(rows.map((r) => r.fn)).toEqual(
      expect.arrayContaining([
        "lead_intake_count_referrals()",
        "lead_intake_count_source_changes()",
        ...PUBLIC_FUNCTIONS,
      ]),
    );
    expect(rows.filter((r) => r.public).map((r) => r.fn)).toEqual(PUBLIC_FUNCTIONS);
    expect(PUBLIC_FUNCTIONS).not.toHaveLength(0);
    for (const pure of rows.filter((r) => r.public))
      expect(pure, pure.fn).toMatchObject({ definer: false, volatility: "i" });
  });

  it("cannot be attached to a table of its own by a login with no grants", async () => {
    const version = await sourceListVersion(db.sql);
    for (const fn of TRIGGER_FUNCTIONS) {
      const attacker = await connectAs();
      try {
        await expect(attachAndFire(attacker, "wipe", [fn])).rejects.toThrow(
          `permission denied for function public.${fn}`,
        );
      } finally {
        await attacker.end();
      }
      await expectCountsIntact();
      expect(await sourceListVersion(db.sql)).toBe(version);
    }
  });

  it("do nothing attached to any other table, even named like the module's, by a role granted EXECUTE", async () => {
    const version = await sourceListVersion(db.sql);
    const grants = `GRANT EXECUTE ON FUNCTION lead_intake_count_referrals(), lead_intake_count_source_changes() TO {role}`;
    for (const table of ["wipe", "referrals", "customers"]) {
      const attacker = await connectAs(grants);
      try {
        await attachAndFire(attacker, table);
      } finally {
        await attacker.end();
      }
      await expectCountsIntact();
      expect(await sourceListVersion(db.sql), table).toBe(version);
    }
  });
});

describe("the sources list version", () => {
  it("moves with every transaction that changes the sources, whatever the session has set", async () => {
    const writer = await connectAs(`GRANT SELECT, INSERT, UPDATE ON customers TO {role}`);
    const tag = (await call("GET", "/api/leads/sources")).headers.get("etag")!;
    try {
      const version = await sourceListVersion(db.sql);
      await writer.query("SET lead_intake.source_list_changed = 'yes'");
      await writer.query(
        `INSERT INTO customers (id, kind, name, source_type) VALUES ('src_forged', 'source', 'Forged Source', 'ads')`,
      );
      expect(await sourceListVersion(db.sql)).toBe(version + 1);
      await writer.query(`BEGIN; SELECT set_config('lead_intake.source_list_changed', 'yes', true);
        UPDATE customers SET name = 'Forged Source Renamed' WHERE id = 'src_forged'; COMMIT`);
      expect(await sourceListVersion(db.sql)).toBe(version + 2);
    } finally {
      await writer.end();
    }
    const stale = await call("GET", "/api/leads/sources", { headers: { "if-none-match": tag } });
    expect(stale.status).toBe(200);
    expect(stale.body.sources.map((s: { name: string }) => s.name)).toContain("Forged Source Renamed");
  });
});
