import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { madeObjects, type MadeObject } from "@/lib/db/migration-objects.mjs";
import { numericSetting } from "@/lib/settings.mjs";
import { logLine } from "@/lib/log-line.mjs";

/**
 * Prisma's own advisory lock id: migrations are recorded in _prisma_migrations as `prisma migrate deploy` does, so
 * either tool can take over from the other, and the two exclude each other.
 */
const PRISMA_MIGRATE_LOCK = 72707369;

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/**
 * Start-up waited LEADS_MIGRATION_LOCK_TIMEOUT for a lock and gave up: the migrations' advisory lock (a stuck
 * migration, or any login that took it), or the locks a pending migration needs on tables that a long transaction,
 * mostly the host's, holds. The message is the sentence start-up fails with, less what to do next.
 */
export class MigrationLockTimeout extends Error {
  /** SQLSTATE lock_not_available, so the failure is classified as a lock timeout. */
  readonly code = "55P03";

  constructor(waitSeconds: number, on: "advisory lock" | "tables" = "advisory lock") {
    super(
      on === "advisory lock"
        ? `Start-up waited ${waitSeconds} s for the migrations' advisory lock (pg_advisory_lock(${PRISMA_MIGRATE_LOCK})) ` +
            `and gave up: another session holds it; find it with SELECT pid, usename, application_name, backend_start ` +
            `FROM pg_locks JOIN pg_stat_activity USING (pid) ` +
            `WHERE locktype = 'advisory' AND objid = ${PRISMA_MIGRATE_LOCK} AND granted, ` +
            `and end it (pg_terminate_backend(pid)) or let it finish`
        : `Start-up waited ${waitSeconds} s for locks on the tables a pending migration changes and gave up: ` +
            `a long transaction holds them; find it with SELECT pid, usename, application_name, xact_start ` +
            `FROM pg_stat_activity WHERE xact_start < now() - interval '10 seconds' ORDER BY xact_start, ` +
            `and end it (pg_terminate_backend(pid)) or let it finish`,
    );
    this.name = "MigrationLockTimeout";
  }
}

/**
 * A pending migration would create an object of a name the database already has, though no earlier migration of the
 * module made it: the host's own, which the module neither takes over nor replaces. The message names the objects by
 * the migrations' own names, no data.
 */
export class HostObjectInTheWay extends Error {
  constructor(objects: string[]) {
    const shown =
      objects.length > MAX_NAMED ? [...objects.slice(0, MAX_NAMED), `${objects.length - MAX_NAMED} more`] : objects;
    const names = shown.length > 1 ? `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}` : shown[0];
    super(
      `The database already has ${names}, which the module's migrations would create: ` +
        `${objects.length > 1 ? "they are" : "it is"} the host's, and the module cannot be installed beside ` +
        `${objects.length > 1 ? "them" : "it"}`,
    );
    this.name = "HostObjectInTheWay";
  }
}

/** How many objects in the way the message names. */
const MAX_NAMED = 5;

/**
 * A migration's statement waits this long for a table's lock, then the try is rolled back and retried after a
 * growing, partly random pause, so the host's queries on that table pass meanwhile (docs/decisions.md, "Migrations
 * wait for host-table locks in short tries").
 */
const TABLE_LOCK_TRY_MS = 150;
const RETRY_BASE_MS = 1000;
const RETRY_CAP_MS = 8000;
/**
 * How often a waiting statement checks that its client is still there: a process stopped while it waits (SIGTERM)
 * leaves no session waiting for the lock.
 */
const CLIENT_CHECK_MS = 500;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
  /**
   * Checksums of earlier texts of this migration that a database may have applied (prisma/migrations/checksums.json).
   */
  earlierChecksums: string[];
}

/** The committed checksum of each landed migration, and the earlier texts some databases applied (checksum: name). */
export interface MigrationChecksums {
  why: string;
  landed: Record<string, string>;
  earlier: Record<string, string>;
}

/**
 * The folder of the migrations the runner applies, from the folder the server runs in: `host:install` writes a host's
 * own here where they sit elsewhere (a workspace package's). A literal in this file, so that Next's build traces it.
 */
const MIGRATIONS_FOLDER = "prisma/migrations";
export const CHECKSUMS_FILE = path.join(MIGRATIONS_FOLDER, "checksums.json");

export async function readMigrations(): Promise<Migration[]> {
  const dir = path.join(process.cwd(), MIGRATIONS_FOLDER);
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const { earlier } = JSON.parse(
    await readFile(path.join(process.cwd(), CHECKSUMS_FILE), "utf8"),
  ) as MigrationChecksums;
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      const checksum = createHash("sha256").update(sql).digest("hex");
      const earlierChecksums = Object.keys(earlier).filter((text) => earlier[text] === name);
      return { name, sql, checksum, earlierChecksums };
    }),
  );
}

/**
 * Returns the names of the migrations it applied. Each migration is one transaction that takes a transaction-level
 * advisory lock, which a transaction pooler cannot hand to another process (docs/decisions.md, "Migrations lock per
 * transaction").
 */
export async function migrate(
  connectionString: string,
  lockWaitSeconds: number = numericSetting("LEADS_MIGRATION_LOCK_TIMEOUT"),
): Promise<string[]> {
  return applyMigrations(connectionString, await readMigrations(), lockWaitSeconds);
}

/** migrate() with the given migrations instead of prisma/migrations' (a test replays earlier commits' with it). */
export async function applyMigrations(
  connectionString: string,
  migrations: Migration[],
  lockWaitSeconds: number = numericSetting("LEADS_MIGRATION_LOCK_TIMEOUT"),
): Promise<string[]> {
  const { created } = madeObjects(migrations);
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const done: string[] = [];
    const lock = { deadline: Date.now() + lockWaitSeconds * 1000, waitSeconds: lockWaitSeconds };
    let failedTries = 0;
    for (;;) {
      let applied: string | null;
      try {
        applied = await inTransaction(client, () => applyNext(client, migrations, created, lock));
      } catch (error) {
        if (error instanceof MigrationLockTimeout || (error as { code?: unknown }).code !== "55P03") throw error;
        // The last try ends by the deadline.
        const pause = Math.min(retryPause(failedTries++), lock.deadline - Date.now() - TABLE_LOCK_TRY_MS);
        if (pause < 0) throw new MigrationLockTimeout(lock.waitSeconds, "tables");
        await new Promise((resolve) => setTimeout(resolve, pause));
        continue;
      }
      if (applied === null) return done;
      failedTries = 0;
      done.push(applied);
      // One line per migration, by name only: its SQL stays out of the log.
      logLine("info", "migration applied", { migration: applied });
    }
  } finally {
    await client.end();
  }
}

/** The pause after `failedTries` + 1 failed tries: RETRY_BASE_MS doubled each time up to RETRY_CAP_MS, jittered. */
function retryPause(failedTries: number): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** failedTries);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Under the lock: checks what is applied, then applies the first pending migration; null when none is. */
async function applyNext(
  client: pg.Client,
  migrations: Migration[],
  created: Map<string, MadeObject[]>,
  lock: LockWait,
): Promise<string | null> {
  await takeLock(client, lock);
  // Only when missing: CREATE ... IF NOT EXISTS needs the CREATE privilege even when the table
  // exists, and a runtime role that may only read and write data must start on an up-to-date database.
  const { rows: found } = await client.query<{ exists: boolean }>(
    `SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS exists`,
  );
  if (!found[0]?.exists) await client.query(CREATE_MIGRATIONS_TABLE);
  const { rows } = await client.query<{ migration_name: string; checksum: string }>(
    `SELECT migration_name, checksum FROM "_prisma_migrations"
     WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
  for (const migration of migrations) {
    const checksum = applied.get(migration.name);
    if (checksum === undefined) {
      // Every pending migration's, so that none is applied beside a host object a later one would meet.
      const pending = migrations.filter((m) => !applied.has(m.name)).flatMap((m) => created.get(m.name) ?? []);
      const inTheWay = await objectsPresent(client, pending);
      if (inTheWay.length) throw new HostObjectInTheWay(inTheWay);
      await apply(client, migration);
      return migration.name;
    }
    if (checksum !== migration.checksum && !migration.earlierChecksums.includes(checksum))
      throw new Error(`Migration ${migration.name} was changed after it was applied`);
  }
  return null;
}

/**
 * Which of the objects a pending migration creates the database already has, in the schema the migration creates
 * them in, as "table lead_source_names" (a relation of any kind has the table's or index's name).
 */
async function objectsPresent(client: pg.Client, objects: MadeObject[]): Promise<string[]> {
  if (!objects.length) return [];
  const { rows } = await client.query<{ n: number }>(
    `SELECT t.n FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(kind, name, args, tbl, n)
     WHERE CASE t.kind
       WHEN 'function' THEN to_regprocedure(format('%I.%I(%s)', current_schema(), t.name, t.args)) IS NOT NULL
       WHEN 'trigger' THEN EXISTS (SELECT FROM pg_trigger g WHERE NOT g.tgisinternal AND g.tgname = t.name
                                   AND g.tgrelid = to_regclass(format('%I.%I', current_schema(), t.tbl)))
       ELSE to_regclass(format('%I.%I', current_schema(), t.name)) IS NOT NULL END
     ORDER BY t.n`,
    [
      objects.map((o) => o.kind),
      objects.map((o) => (o.kind === "function" ? o.function : o.kind === "trigger" ? o.name.split(".")[1] : o.name)),
      objects.map((o) => o.argumentTypes ?? ""),
      objects.map((o) => o.table ?? ""),
    ],
  );
  return rows.map(({ n }) => `${objects[Number(n) - 1]!.kind} ${objects[Number(n) - 1]!.name}`);
}

interface LockWait {
  /** When the whole run stops waiting (Date.now() milliseconds), and the configured wait it came from. */
  deadline: number;
  waitSeconds: number;
}

/**
 * Takes the transaction's advisory lock, waiting at most until the run's deadline (lock_timeout applies to advisory
 * locks too); then the migration's own statements wait at most TABLE_LOCK_TRY_MS for each lock.
 */
async function takeLock(client: pg.Client, lock: LockWait): Promise<void> {
  // PostgreSQL 14 and later have the check.
  await client.query(
    "SELECT set_config(name, $1, true) FROM pg_settings WHERE name = 'client_connection_check_interval'",
    [`${CLIENT_CHECK_MS}ms`],
  );
  await client.query("SELECT set_config('lock_timeout', $1, true)", [`${Math.max(1, lock.deadline - Date.now())}ms`]);
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [PRISMA_MIGRATE_LOCK]);
  } catch (error) {
    if ((error as { code?: unknown }).code === "55P03") throw new MigrationLockTimeout(lock.waitSeconds);
    throw error;
  }
  await client.query("SELECT set_config('lock_timeout', $1, true)", [`${TABLE_LOCK_TRY_MS}ms`]);
}

async function inTransaction<T>(client: pg.Client, work: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/** Inside the caller's transaction: the migration and its record, as `prisma migrate deploy` writes it. */
async function apply(client: pg.Client, migration: Migration): Promise<void> {
  const id = randomUUID();
  await client.query(
    `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
     VALUES ($1, $2, $3, now(), 0)`,
    [id, migration.checksum, migration.name],
  );
  await client.query(migration.sql);
  await client.query(`UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`, [
    id,
  ]);
}
