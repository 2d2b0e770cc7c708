import { randomBytes } from "node:crypto";
import pg from "pg";
import { adminQuery, databaseUrl, type TestDatabase } from "./db";

/**
 * A host database as it was before the lead intake module existed: an empty
 * database, the host's tables written by hand as a host would have them, and
 * host data with legacy values. Three layouts:
 *  - normal: users.access_levels and referrals.assigned_agent_id exist;
 *  - legacy: users without access_levels;
 *  - no-assignment: referrals without assigned_agent_id.
 */
export type HostLayout = "normal" | "legacy" | "no-assignment";

export const HOST_TABLES = ["customers", "users", "referrals", "audit_entries"] as const;

/** An empty database in the test cluster (no migrations applied), not selected as DATABASE_URL. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `host_${randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = databaseUrl(name);
  return { url, name, sql: new pg.Pool({ connectionString: url, max: 4 }) };
}

/** The host's own DDL, written without the module (its own style: inline keys, now(), no Prisma names). */
function hostDdl(layout: HostLayout): string {
  const accessLevels = layout === "legacy" ? "" : "access_levels text[] DEFAULT '{}',";
  const assignedAgent = layout === "no-assignment" ? "" : "assigned_agent_id integer REFERENCES users (id),";
  return `
    CREATE TABLE customers (
      id text PRIMARY KEY,
      kind text NOT NULL,
      name text NOT NULL,
      mobile_number text,
      state text NOT NULL DEFAULT '',
      city text NOT NULL DEFAULT '',
      address text NOT NULL DEFAULT '',
      source_type text,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE TABLE users (
      id serial PRIMARY KEY,
      platform_id text UNIQUE,
      name text NOT NULL,
      ${accessLevels}
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE TABLE referrals (
      id serial PRIMARY KEY,
      referrer_customer_id text NOT NULL REFERENCES customers (id),
      lead_customer_id text REFERENCES customers (id),
      lead_name text NOT NULL,
      mobile_number text,
      status text NOT NULL,
      state text,
      city text,
      address text,
      relationship text,
      project_type text,
      remark text,
      ${assignedAgent}
      preferred_agent_id integer REFERENCES users (id),
      created_at timestamptz(3) DEFAULT now()
    );
    CREATE TABLE audit_entries (
      id serial PRIMARY KEY,
      referral_id integer NOT NULL REFERENCES referrals (id),
      action text NOT NULL,
      actor text NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );`;
}

/** Ids of the host data, for assertions. */
export const HOST = {
  users: { siti: 1, ravi: 2, mona: 3, noPlatform: 4, nullLevels: 5 },
  person: "cus_host_person",
  facebook: "src_host_facebook", // "FaceBook  Ads": the configured "Facebook Ads" under another spelling
  roadshowOld: "src_zz_roadshow", // "Roadshow KL", the older of two spellings: wins the name
  roadshowNew: "src_aa_roadshow", // "  roadshow   KL ", newer (and first by id)
  walkIn: "src_host_walkin", // legacy source without source_type
  penang: "src_host_penang", // "Roadshow<TAB>Penang<NEWLINE>": white space other than spaces, at the end too
  referrals: { contacted: 1, legacy: 2, person: 3, duplicateSource: 4 },
} as const;

/** Builds the host's tables and fills them with data written before the module existed. */
export async function createHostDatabase(layout: HostLayout): Promise<TestDatabase> {
  const db = await createEmptyDatabase();
  await db.sql.query(hostDdl(layout));
  const hasLevels = layout !== "legacy";
  const hasAssignment = layout !== "no-assignment";

  const users: [string | null, string, string[] | null][] = [
    ["plat-siti", "Siti Sales", ["sales"]],
    ["plat-ravi", "Ravi Kumar", ["manager", "sales"]],
    ["plat-mona", "Mona Manager", ["manager"]],
    [null, "Old Staff Without Platform Id", ["sales"]],
    ["plat-null", "Null Levels", null],
  ];
  for (const [platformId, name, levels] of users) {
    await db.sql.query(
      hasLevels
        ? "INSERT INTO users (platform_id, name, access_levels, created_at) VALUES ($1, $2, $3, '2020-01-01T00:00:00Z')"
        : "INSERT INTO users (platform_id, name, created_at) VALUES ($1, $2, '2020-01-01T00:00:00Z')",
      hasLevels ? [platformId, name, levels] : [platformId, name],
    );
  }

  await db.sql.query(`
    INSERT INTO customers (id, kind, name, mobile_number, state, city, address, source_type, created_at) VALUES
      ('${HOST.person}', 'person', 'Encik Rahman', '60129998888', 'Selangor', 'Shah Alam', 'Jalan 1', NULL, '2019-05-01T08:00:00Z'),
      ('${HOST.facebook}', 'source', 'FaceBook  Ads', NULL, '', '', '', 'ads', '2019-01-01T00:00:00Z'),
      ('${HOST.roadshowOld}', 'source', 'Roadshow KL', NULL, '', '', '', 'other', '2019-02-01T00:00:00Z'),
      ('${HOST.roadshowNew}', 'source', '  roadshow   KL ', NULL, '', '', '', 'other', '2021-06-01T00:00:00Z'),
      ('${HOST.walkIn}', 'source', 'Walk In', NULL, '', '', '', NULL, '2019-03-01T00:00:00Z'),
      ('${HOST.penang}', 'source', E'Roadshow\tPenang\n', NULL, '', '', '', 'other', '2019-04-01T00:00:00Z'),
      ('cus_host_lead1', 'person', 'Old Lead One', '60121234567', '', '', '', NULL, '2021-01-01T00:00:00Z'),
      ('cus_host_lead3', 'person', 'Old Lead Three', '0198887777', '', '', '', NULL, '2021-03-01T00:00:00Z'),
      ('cus_host_lead4', 'person', 'Old Lead Four', NULL, '', '', '', NULL, '2021-07-01T00:00:00Z')`);

  const assigned = (userId: number | null) => (hasAssignment ? [userId] : []);
  const assignedColumn = hasAssignment ? ", assigned_agent_id" : "";
  const assignedValue = (n: number) => (hasAssignment ? `, $${n}` : "");
  const referrals: [
    string,
    string | null,
    string,
    string | null,
    string,
    (string | null)[],
    number | null,
    number | null,
    string | null,
  ][] = [
    // referrer, lead customer, name, mobile, status,
    // [state, city, address, relationship, project type, remark], assigned, preferred, created
    [
      HOST.facebook,
      "cus_host_lead1",
      "Old Lead One",
      "60121234567",
      "Contacted",
      ["Johor", "JB", "No 2", "Friend", "RESIDENTIAL (2%)", "call after 5"],
      HOST.users.siti,
      HOST.users.ravi,
      "2021-01-01T00:00:00.123Z",
    ],
    [
      HOST.roadshowOld,
      null,
      "Legacy Lead Without Customer",
      null,
      "NEW LEAD",
      [null, null, null, null, null, null],
      null,
      null,
      null,
    ],
    [
      HOST.person,
      "cus_host_lead3",
      "Old Lead Three",
      "0198887777",
      "closed-won",
      ["", "", "", "Family", "OTHERS", ""],
      HOST.users.mona,
      null,
      "2021-03-01T00:00:00Z",
    ],
    [
      HOST.roadshowNew,
      "cus_host_lead4",
      "Old Lead Four",
      null,
      "Rejected",
      ["Penang", null, "", "Neighbor", null, null],
      null,
      HOST.users.noPlatform,
      "2021-07-01T00:00:00Z",
    ],
  ];
  for (const [referrer, lead, name, mobile, status, extra, agent, preferred, createdAt] of referrals) {
    await db.sql.query(
      `INSERT INTO referrals (referrer_customer_id, lead_customer_id, lead_name, mobile_number, status, state, city,
         address, relationship, project_type, remark, preferred_agent_id, created_at${assignedColumn})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13${assignedValue(14)})`,
      [referrer, lead, name, mobile, status, ...extra, preferred, createdAt, ...assigned(agent)],
    );
  }
  await db.sql.query(`
    INSERT INTO audit_entries (referral_id, action, actor, created_at) VALUES
      (1, 'created', 'admin@host', '2021-01-01T00:00:01Z'),
      (1, 'status: Contacted', 'plat-siti', '2021-01-02T00:00:00Z'),
      (3, 'created', 'app', '2021-03-01T00:00:01Z')`);
  return db;
}

/** Every row of every host table, in key order. */
export async function snapshotRows(sql: pg.Pool): Promise<Record<string, unknown[]>> {
  const snapshot: Record<string, unknown[]> = {};
  for (const table of HOST_TABLES) {
    snapshot[table] = (await sql.query(`SELECT * FROM ${table} ORDER BY id`)).rows;
  }
  return snapshot;
}

/** The host rows with the ids of a snapshot, now: old rows must stay as they were after the service wrote new ones. */
export async function currentRowsOf(
  sql: pg.Pool,
  snapshot: Record<string, unknown[]>,
): Promise<Record<string, unknown[]>> {
  const now: Record<string, unknown[]> = {};
  for (const table of HOST_TABLES) {
    const ids = snapshot[table].map((row) => (row as { id: unknown }).id);
    now[table] = (await sql.query(`SELECT * FROM ${table} WHERE id = ANY($1) ORDER BY id`, [ids])).rows;
  }
  return now;
}

/** Columns, constraints, indexes and triggers of the host tables. */
export async function snapshotSchema(sql: pg.Pool) {
  const tables = [...HOST_TABLES];
  const columns = await sql.query(
    `SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default, datetime_precision
     FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ANY($1)
     ORDER BY table_name, column_name`,
    [tables],
  );
  const constraints = await sql.query(
    `SELECT c.relname AS table, con.conname AS name, pg_get_constraintdef(con.oid) AS def
     FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
     WHERE con.connamespace = current_schema()::regnamespace AND c.relname = ANY($1)
     ORDER BY 1, 2`,
    [tables],
  );
  const indexes = await sql.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes
     WHERE schemaname = current_schema() AND tablename = ANY($1) ORDER BY 1`,
    [tables],
  );
  const triggers = await sql.query<{ table: string; name: string; def: string }>(
    `SELECT c.relname AS table, t.tgname AS name, pg_get_triggerdef(t.oid) AS def
     FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
     WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace AND c.relname = ANY($1)
     ORDER BY 1, 2`,
    [tables],
  );
  return { columns: columns.rows, constraints: constraints.rows, indexes: indexes.rows, triggers: triggers.rows };
}

/** The name keys of the host's sources once the configured default sources are added. */
export const KEYS_AFTER_CONFIGURED_SOURCES = [
  "facebook ads",
  "google ads",
  "roadshow kl",
  "roadshow penang",
  "tiktok ads",
  "walk in",
  "website form",
];

/** The module's registry of source names. */
export async function sourceNames(sql: pg.Pool): Promise<{ key: string; customer_id: string }[]> {
  return (await sql.query("SELECT key, customer_id FROM lead_source_names ORDER BY key")).rows;
}

export async function migrationRecords(sql: pg.Pool) {
  return (
    await sql.query(
      `SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at IS NULL AS not_rolled_back,
              applied_steps_count
       FROM _prisma_migrations ORDER BY migration_name`,
    )
  ).rows;
}
