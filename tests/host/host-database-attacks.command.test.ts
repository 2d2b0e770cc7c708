import { spawnSync } from "node:child_process";
import { rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrate";
import type { TestDatabase } from "../helpers/db";
import { catalog, HOST_MIGRATION, hostDatabase } from "../helpers/host-database";
import { generateHostClient, hostCopy, ROOT, runHostScript } from "../helpers/host-install-run";

/**
 * Host databases holding objects of the module's names that it did not make, or that the host changed after its
 * migrations made them: start-up refuses to install beside them in one sentence, and `host:uninstall --yes` keeps
 * each with its rows, naming it in one sentence, and drops only what is still as the module made it. `host:check`
 * names a host function the module's revoke reached, and in a half-installed host says what failed without a stack.
 */

/** Every row of each table, in a stable order. */
async function rowsOf(sql: pg.Pool, tables: string[]): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const table of tables) rows[table] = (await sql.query(`SELECT * FROM ${table} ORDER BY 1`)).rows;
  return rows;
}

async function migrationRows(sql: pg.Pool): Promise<string[]> {
  const { rows } = await sql.query<{ name: string }>(
    `SELECT migration_name AS name FROM "_prisma_migrations" ORDER BY 1`,
  );
  return rows.map((r) => r.name);
}

/** A copy of the fixture host with the module installed, and its database with the host's migration applied. */
async function installedHost() {
  const folders = hostCopy();
  const db = await hostDatabase(folders.host);
  const installed = runHostScript("install", [folders.host]);
  expect(installed.status, installed.stderr).toBe(0);
  const uninstall = () => runHostScript("uninstall", [folders.host, "--yes"], { DATABASE_URL: db.url });
  return { folders, db, uninstall };
}

/** `npm run host:check` as the host runs it, in its folder. */
const hostCheck = (host: string, env: NodeJS.ProcessEnv) =>
  spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/host/check/check.ts"], {
    cwd: host,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });

const HOST_TABLES = ["customers", "users", "referrals", "audit_entries"];
const IN_THE_WAY =
  "The database already has table lead_source_names, table lead_referrer_counts, function " +
  "lead_intake_source_key(text), index customers_source_key_idx and trigger " +
  "customers.lead_intake_count_source_changes, which the module's migrations would create: they are the " +
  "host's, and the module cannot be installed beside them";

describe(
  "the module's migrations never applied; the host has objects of the module's names",
  { timeout: 120_000 },
  () => {
    let host: Awaited<ReturnType<typeof installedHost>>;
    let db: TestDatabase;
    const OWN_TABLES = ["lead_source_names", "lead_referrer_counts"];

    beforeAll(async () => {
      host = await installedHost();
      db = host.db;
      // The same columns as the module's lead_source_names: only the migrations' record tells them apart.
      await db.sql.query(`
      INSERT INTO customers (id, kind, name) VALUES ${[1, 2, 3, 4, 5].map((n) => `('cus_${n}', 'source', 'Fair ${n}')`).join(", ")};
      CREATE TABLE lead_source_names (key text PRIMARY KEY, customer_id text NOT NULL REFERENCES customers (id));
      INSERT INTO lead_source_names SELECT lower(name), id FROM customers;
      CREATE TABLE lead_referrer_counts (customer_id text PRIMARY KEY, total integer NOT NULL);
      INSERT INTO lead_referrer_counts VALUES ('cus_1', 7);
      CREATE INDEX customers_source_key_idx ON customers (name);
      CREATE FUNCTION lead_intake_source_key(name text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT upper(name) $$;
      CREATE FUNCTION host_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
      CREATE TRIGGER lead_intake_count_source_changes AFTER INSERT ON customers FOR EACH ROW EXECUTE FUNCTION host_touch();`);
    });

    afterAll(async () => {
      await db?.sql.end();
      if (host) rmSync(host.folders.parent, { recursive: true, force: true });
    });

    it("start-up refuses in one sentence naming them, never suggesting the uninstall, and applies nothing", async () => {
      const before = await catalog(db.sql);
      await expect(migrate(db.url)).rejects.toMatchObject({ name: "HostObjectInTheWay", message: IN_THE_WAY });
      const launcher = spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/prepare-db.ts"], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: db.url },
        encoding: "utf8",
        timeout: 60_000,
      });
      expect({ status: launcher.status, stderr: launcher.stderr }).toEqual({ status: 1, stderr: `${IN_THE_WAY}.\n` });
      expect(await catalog(db.sql)).toEqual(before);
      expect(await migrationRows(db.sql)).toEqual([HOST_MIGRATION]);
    });

    it("the uninstall keeps every one of them and its rows, each named in one sentence", async () => {
      const before = await catalog(db.sql);
      const rows = await rowsOf(db.sql, [...HOST_TABLES, ...OWN_TABLES]);
      const result = host.uninstall();
      expect(result.status, result.stderr).toBe(0);
      const notRecorded = (migration: string) =>
        `the module's migration ${migration}, which makes it, is not recorded as applied, so it is the host's.`;
      const database = result.stdout.split("\n").filter((line) => /^- (database|kept [a-z]+ )/.test(line));
      expect(database).toEqual([
        "- database: drop nothing; delete no row of _prisma_migrations. The rows of the host's tables stay.",
        `- kept table lead_source_names: ${notRecorded("20261122000100_lead_intake")}`,
        `- kept table lead_referrer_counts: ${notRecorded("20261122000100_lead_intake")}`,
        `- kept function lead_intake_source_key(text): ${notRecorded("20261123120000_source_key")}`,
        `- kept index customers_source_key_idx: ${notRecorded("20261123120000_source_key")}`,
        `- kept trigger customers.lead_intake_count_source_changes: ${notRecorded("20261126000000_statement_counts")}`,
      ]);
      expect(await catalog(db.sql)).toEqual(before);
      expect(await rowsOf(db.sql, [...HOST_TABLES, ...OWN_TABLES])).toEqual(rows);
      expect(await migrationRows(db.sql)).toEqual([HOST_MIGRATION]);
    });
  },
);

describe("the module's migrations applied, then the host changed what they made", { timeout: 120_000 }, () => {
  let host: Awaited<ReturnType<typeof installedHost>>;
  let db: TestDatabase;
  let before: string[];
  let rows: Record<string, unknown[]>;
  const KEPT_TABLES = [
    "lead_source_names",
    "lead_referrer_counts",
    "lead_source_lead_counts",
    "lead_source_lead_blocks",
  ];

  beforeAll(async () => {
    host = await installedHost();
    db = host.db;
    await migrate(db.url);
    const [{ definition }] = (
      await db.sql.query<{ definition: string }>(
        "SELECT pg_get_functiondef('lead_intake_count_referrals()'::regprocedure) AS definition",
      )
    ).rows;
    await db.sql.query(`
      INSERT INTO customers (id, kind, name) VALUES ('cus_fair', 'source', 'Fair');
      INSERT INTO referrals (referrer_customer_id, lead_name, status) VALUES ('cus_fair', 'Host Lead', 'New');
      -- A column of the host's on a module table, with a value.
      ALTER TABLE lead_source_names ADD COLUMN note text;
      INSERT INTO lead_source_names VALUES ('fair', 'cus_fair', 'the host''s');
      -- The host's own index in place of the module's, and its own trigger under one of the module's names.
      DROP INDEX customers_source_key_idx;
      CREATE INDEX customers_source_key_idx ON customers (name);
      CREATE FUNCTION host_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
      DROP TRIGGER lead_intake_count_source_truncates ON customers;
      CREATE TRIGGER lead_intake_count_source_truncates AFTER TRUNCATE ON customers
        FOR EACH STATEMENT EXECUTE FUNCTION host_touch();`);
    // The host's edit of the module's count function: one line more.
    await db.sql.query(definition.replace(/\nBEGIN\n/, "\nBEGIN\n  -- the host's audit\n"));
    before = await catalog(db.sql);
    rows = await rowsOf(db.sql, [...HOST_TABLES, ...KEPT_TABLES]);
  });

  afterAll(async () => {
    await db?.sql.end();
    if (host) rmSync(host.folders.parent, { recursive: true, force: true });
  });

  it("the uninstall keeps what the host changed, and what that needs, each named in one sentence", () => {
    const result = host.uninstall();
    expect(result.status, result.stderr).toBe(0);
    const database = result.stdout.split("\n").filter((line) => /^- (database|kept [a-z]+ )/.test(line));
    const statementTriggers = ["inserts", "updates", "deletes"].map((e) => `referrals.lead_intake_count_referral_${e}`);
    const runsKept = "the function it runs, lead_intake_count_referrals(), stays.";
    const used = "the function lead_intake_count_referrals(), which stays, writes or reads it.";
    expect(database.sort()).toEqual(
      [
        "- database: drop triggers customers.lead_intake_count_source_changes; tables lead_rate_limit_counts, " +
          "lead_source_list_versions; functions lead_intake_count_source_changes(), lead_intake_source_key(text); " +
          "delete the module's 1 row of _prisma_migrations. The rows of 20261122000000_host_tables, " +
          "20261122000100_lead_intake, 20261123000000_lead_count_slots, 20261123120000_source_key, " +
          "20261123130000_source_lead_totals and 6 more stay in _prisma_migrations, as objects they made or changed " +
          "stay. The rows of the host's tables stay.",
        "- kept function lead_intake_count_referrals(): its body is not the one the module's migrations wrote, so " +
          "the host changed it.",
        "- kept function lead_intake_lead_block_size(): the function lead_intake_count_referrals(), which stays, " +
          "calls it.",
        "- kept table lead_source_names: its columns are not those the module's migrations made (not the module's: " +
          "note text), so the host changed it.",
        `- kept table lead_referrer_counts: ${used}`,
        `- kept table lead_source_lead_counts: ${used}`,
        `- kept table lead_source_lead_blocks: ${used}`,
        `- kept table lead_source_lead_groups: ${used}`,
        `- kept table lead_per_source_lead_blocks: ${used}`,
        `- kept table lead_per_source_lead_groups: ${used}`,
        "- kept index customers_source_key_idx: its definition is not the one the module's migrations wrote, so it " +
          "is the host's.",
        "- kept trigger customers.lead_intake_count_source_truncates: it runs another function than the module's " +
          "lead_intake_count_source_changes, so it is the host's.",
        `- kept trigger referrals.lead_intake_count_referrals_truncate: ${runsKept}`,
        ...statementTriggers.map((t) => `- kept trigger ${t}: ${runsKept}`),
      ].sort(),
    );
  });

  it("drops only the rest; the host's objects, the kept ones and their rows stay, and referrals still take rows", async () => {
    const gone = [
      "function lead_intake_count_source_changes()",
      "function lead_intake_source_key(text)",
      "table lead_rate_limit_counts",
      "table lead_source_list_versions",
      "trigger customers.lead_intake_count_source_changes",
    ];
    const after = await catalog(db.sql);
    expect(after).toEqual(
      before.filter(
        (name) => !gone.includes(name) && !/^index lead_(rate_limit_counts|source_list_versions)_/.test(name),
      ),
    );
    expect(await rowsOf(db.sql, [...HOST_TABLES, ...KEPT_TABLES])).toEqual(rows);
    expect(await migrationRows(db.sql)).not.toContain("20261126030000_rate_limit_counts");
    expect(await migrationRows(db.sql)).toContain("20261122000100_lead_intake");
    // The kept trigger, function and tables still work together: the host's own writes of referrals succeed.
    await db.sql.query(
      `INSERT INTO referrals (referrer_customer_id, lead_name, status) VALUES ('cus_fair', 'B', 'New')`,
    );
  });
});

describe("host:check on the host's own lead_intake_* function without EXECUTE for PUBLIC", { timeout: 120_000 }, () => {
  it("names it by its signature with the GRANT that gives it back, none of the module's own, and grants nothing", async () => {
    const { folders, db } = await installedHost();
    try {
      await db.sql.query(`
        CREATE FUNCTION lead_intake_score(points int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT points * 2 $$;
        CREATE FUNCTION lead_intake_label(points int) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'x' $$;`);
      // The module's migration revokes EXECUTE from PUBLIC on every lead_intake_* function: the host's two too.
      await migrate(db.url);
      await db.sql.query("GRANT EXECUTE ON FUNCTION lead_intake_label(int) TO PUBLIC");
      // The printed steps: the packages installed, the host's client generated.
      const env = generateHostClient(folders.host, db.url);
      const check = hostCheck(folders.host, { ...env, LEADS_API_KEY: "k".repeat(40) });
      // No host server runs here, so the gate line is the one FAIL: the check never passes without one.
      expect(check.status, check.stdout).toBe(1);
      expect(check.stdout.split("\n").filter((line) => /^FAIL /.test(line))).toEqual([
        expect.stringMatching(/^FAIL gate: .*--url http:\/\/localhost:3000 or LEADS_HOST_URL$/),
      ]);
      expect(check.stdout.split("\n").filter((line) => line.includes("lead_intake_") && !/^ok /.test(line))).toEqual([
        "note functions: the host's lead_intake_score(integer) lacks EXECUTE for PUBLIC, which a migration of the " +
          "module revokes from every lead_intake_* function; unless the host revoked it itself, give it back: " +
          "GRANT EXECUTE ON FUNCTION lead_intake_score(integer) TO PUBLIC;",
      ]);
      const { rows } = await db.sql.query<{ granted: boolean }>(
        "SELECT has_function_privilege('public', 'lead_intake_score(int)'::regprocedure, 'EXECUTE') AS granted",
      );
      expect(rows).toEqual([{ granted: false }]);
    } finally {
      await db.sql.end();
      rmSync(folders.parent, { recursive: true, force: true });
    }
  });
});

describe("host:check in the host a failed install left (no client re-export)", { timeout: 120_000 }, () => {
  it("prints one FAIL line per problem with its fix, no stack trace, and exits 1", () => {
    const folders = hostCopy();
    try {
      const installed = runHostScript("install", [folders.host]);
      expect(installed.status, installed.stderr).toBe(0);
      rmSync(path.join(folders.host, "lib/generated/prisma/client.ts"));
      // The module's packages, as the printed step installs them.
      symlinkSync(path.join(ROOT, "node_modules"), path.join(folders.host, "node_modules"));
      const result = hostCheck(folders.host, { ...process.env, DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" });
      expect({ status: result.status, stderr: result.stderr, lines: result.stdout.trim().split("\n") }).toEqual({
        status: 1,
        stderr: "",
        lines: [
          "FAIL install: missing lib/generated/prisma/client.ts; run npm run host:install again to put them back",
          "FAIL install: a part of the module cannot be loaded (Cannot find module " +
            "'@/lib/generated/prisma/client'); run the steps npm run host:install printed (install the packages, " +
            "then generate the Prisma client), or npm run host:install again",
        ],
      });
    } finally {
      rmSync(folders.parent, { recursive: true, force: true });
    }
  });
});
