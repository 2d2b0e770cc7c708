import { spawnSync } from "node:child_process";
import { appendFile, chmod, chown, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  embeddedUrl,
  passwordFile,
  removeEmbeddedCluster,
  runningPostmaster,
  startEmbeddedPostgres,
  type EmbeddedPostgresServer,
} from "@/lib/runtime/embedded-postgres.mjs";
import { postgresUser, reachableBinaries } from "@/lib/runtime/postgres-user.mjs";
import { migrate } from "@/lib/db/migrate";
import { freePort } from "@/scripts/process-group";
import { TEST_KEY, withKeys } from "../helpers/key";
import { listeningSockets } from "../helpers/process-tree";

/**
 * Who can log in to the embedded PostgreSQL: only who can read its password
 * file. Its superuser runs OS commands as the server's user (COPY ... FROM
 * PROGRAM), so a guessable password, a login from another local account or a
 * socket anyone can reach would hand that account the database's user.
 */
const asRoot = process.getuid?.() === 0;
/** The password a cluster had when every cluster shared one. */
const FIXED = "postgres";
/** Something the operator exported that PostgreSQL has no use for. */
const OPERATOR_SECRET = "operator-secret-value-1234";

let dir: string;
let port: number;
let server: EmbeddedPostgresServer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "lead-intake-access-pg-"));
  port = await freePort();
  // As the launcher runs it: with the key and the operator's own variables in its environment.
  process.env.OPERATOR_SECRET = OPERATOR_SECRET;
  try {
    server = await withKeys({ LEADS_API_KEY: TEST_KEY }, () =>
      startEmbeddedPostgres({ dir, port, database: "access", persistent: false }),
    );
  } finally {
    delete process.env.OPERATOR_SECRET;
  }
});

afterAll(async () => {
  await server?.stop();
  removeEmbeddedCluster(dir);
});

/** Logs in over TCP and says who it is, or the error code PostgreSQL refused with. */
async function login(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return (await client.query<{ who: string }>("SELECT current_user AS who")).rows[0].who;
  } catch (error) {
    return `refused ${(error as { code?: string }).code}`;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A superuser session's answers to `queries`, in order. */
async function asSuperuser(url: string, ...queries: string[]): Promise<Record<string, unknown>[][]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const answers: Record<string, unknown>[][] = [];
    for (const query of queries) answers.push((await client.query(query)).rows);
    return answers;
  } finally {
    await client.end();
  }
}

/** SQL run in single-user mode on the stopped cluster in `folder`, as the user PostgreSQL runs as; its output. */
function singleUser(folder: string, sql: string, database = "postgres"): string {
  const ids = postgresUser();
  const run = spawnSync(reachableBinaries(ids).postgres, ["--single", "-D", folder, database], {
    uid: ids.uid,
    gid: ids.gid,
    input: `${sql}\n`,
    encoding: "utf8",
  });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stderr).not.toMatch(/ERROR|FATAL/);
  return `${run.stdout}${run.stderr}`;
}

/** A file of access rules that lets anyone in without a password, readable by the server's user. */
async function trustFile(): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), "lead-intake-trust-"));
  await chmod(folder, 0o755);
  const file = path.join(folder, "trust.conf");
  await writeFile(file, "host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n", { mode: 0o644 });
  return file;
}

/** Names of the environment variables of a process, from /proc. */
function environmentOf(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return new Map(entries.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
}

/**
 * What PostgreSQL may carry in its environment: what the launcher passes (PATH, the locale, the time zone), what
 * PostgreSQL sets itself (LC_* of the cluster, PGSYSCONFDIR) and what the shell of COPY ... FROM PROGRAM adds.
 */
const ALLOWED_ENVIRONMENT = /^(PATH|LANG|LANGUAGE|LC_[A-Z_]+|TZ|TZDIR|PGSYSCONFDIR|PWD|SHLVL|_)$/;

/** A command run as the `nobody` OS user: its exit status and what it printed. */
function asNobody(command: string[], env: Record<string, string> = {}) {
  const run = spawnSync(
    "runuser",
    ["-u", "nobody", "--", "env", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...command],
    {
      encoding: "utf8",
      timeout: 30_000,
    },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("the embedded PostgreSQL's logins", () => {
  it("refuses the superuser with the password postgres, and admits the URL built from the password file", async () => {
    expect(await login(`postgresql://postgres:${FIXED}@127.0.0.1:${port}/access`)).toBe("refused 28P01");
    expect(await login(embeddedUrl(dir, port, "access"))).toBe("postgres");
    expect(server.url).toBe(embeddedUrl(dir, port, "access"));
  });

  it("keeps the password in a file beside the data folder, mode 0600, owned by the user who started it", async () => {
    expect(passwordFile(dir)).toBe(`${dir}.password`);
    const file = await stat(passwordFile(dir));
    expect(file.mode & 0o777).toBe(0o600);
    expect(file.uid).toBe(process.getuid!());
    expect(readFileSync(passwordFile(dir), "utf8").trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("listens on loopback TCP only and has no Unix socket", () => {
    const sockets = listeningSockets(port);
    expect(sockets.length).toBeGreaterThan(0);
    // 127.0.0.1 and ::1 as the kernel prints them (little-endian words).
    expect(sockets.filter((s) => s.address !== "0100007F" && s.address !== "00000000000000000000000001000000")).toEqual(
      [],
    );
    const unixSockets = readFileSync("/proc/net/unix", "utf8").split("\n");
    expect(unixSockets.filter((line) => line.endsWith(`.s.PGSQL.${port}`))).toEqual([]);
  });

  it.runIf(asRoot)("admits no other OS user: nobody can neither read the password file nor log in", () => {
    const psql = ["psql", "-w", "-U", "postgres", "-d", "access", "-Atc", "SELECT 1"];
    const overTcp = asNobody([...psql, "-h", "127.0.0.1", "-p", String(port)], { PGPASSWORD: FIXED });
    expect(overTcp.output).toContain('password authentication failed for user "postgres"');
    expect(overTcp.status).not.toBe(0);
    // The binaries' built-in socket folder, and Debian's.
    for (const socketDir of ["/tmp", "/var/run/postgresql"]) {
      const overSocket = asNobody([...psql, "-h", socketDir, "-p", String(port)], { PGPASSWORD: FIXED });
      expect(overSocket.output).toContain("No such file or directory");
      expect(overSocket.status).not.toBe(0);
    }
    const read = asNobody(["cat", passwordFile(dir)]);
    expect(read.status).not.toBe(0);
    expect(read.output).toContain("Permission denied");
  });
});

describe("the embedded PostgreSQL's process", () => {
  it("starts with a minimal environment: no key and nothing of the operator's, in the postmaster or a backend", async () => {
    const postmaster = environmentOf(server.pid);
    const [, , backend] = await asSuperuser(
      server.url,
      "CREATE TEMP TABLE environment (line text)",
      "COPY environment FROM PROGRAM 'env'",
      "SELECT line FROM environment",
    );
    const backendNames = backend
      .map(({ line }) => String(line).split("=")[0])
      .filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
    expect(backendNames).toContain("PATH");
    for (const names of [[...postmaster.keys()], backendNames]) {
      expect(names.filter((name) => !ALLOWED_ENVIRONMENT.test(name))).toEqual([]);
    }
    const everything = [...postmaster.values(), ...backend.map(({ line }) => String(line))].join("\n");
    expect(everything).not.toContain(TEST_KEY);
    expect(everything).not.toContain(OPERATOR_SECRET);
  });

  it("reads the access rules and settings from files fixed on its command line: ALTER SYSTEM SET hba_file is outranked", async () => {
    const own = await mkdtemp(path.join(tmpdir(), "lead-intake-hba-pg-"));
    const ownPort = await freePort();
    let cluster = await startEmbeddedPostgres({ dir: own, port: ownPort, database: "own" });
    try {
      const trust = await trustFile();
      await asSuperuser(cluster.url, `ALTER SYSTEM SET hba_file = '${trust}'`);
      await cluster.stop();
      cluster = await startEmbeddedPostgres({ dir: own, port: ownPort, database: "own" });
      const [[hba], [config]] = await asSuperuser(cluster.url, "SHOW hba_file", "SHOW config_file");
      expect(hba.hba_file).toBe(path.join(own, "pg_hba.conf"));
      expect(config.config_file).toBe(path.join(own, "postgresql.conf"));
      expect(await login(`postgresql://postgres:wrong@127.0.0.1:${ownPort}/own`)).toBe("refused 28P01");
      await rm(path.dirname(trust), { recursive: true, force: true });
    } finally {
      await cluster.stop();
      removeEmbeddedCluster(own);
    }
  }, 60_000);
});

describe("a cluster made with the fixed password (no password file)", () => {
  let legacy: string;
  let legacyServer: EmbeddedPostgresServer | undefined;

  afterEach(async () => {
    await legacyServer?.stop();
    removeEmbeddedCluster(legacy);
  });

  /** initdb as clusters were made with one password for all: password logins, superuser postgres/postgres. */
  async function makeLegacyCluster(): Promise<string> {
    const folder = await mkdtemp(path.join(tmpdir(), "lead-intake-legacy-pg-"));
    const secrets = await mkdtemp(path.join(tmpdir(), "lead-intake-legacy-pw-"));
    const ids = postgresUser();
    const file = path.join(secrets, "password");
    await writeFile(file, `${FIXED}\n`, { mode: 0o600 });
    if (ids.uid !== undefined) for (const owned of [folder, secrets, file]) await chown(owned, ids.uid, ids.gid!);
    const args = [`--pgdata=${folder}`, "--auth=password", "--username=postgres", `--pwfile=${file}`];
    const initdb = spawnSync(reachableBinaries(ids).initdb, args, { uid: ids.uid, gid: ids.gid, encoding: "utf8" });
    await rm(secrets, { recursive: true, force: true });
    expect(initdb.status).toBe(0);
    return folder;
  }

  /** Starts the cluster in `folder` (as legacyServer) and returns the lines it printed. */
  async function startPrinting(folder: string, on: number): Promise<string[]> {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      legacyServer = await startEmbeddedPostgres({ dir: folder, port: on, database: "kept" });
      return log.mock.calls.map((call) => call.join(" "));
    } finally {
      log.mockRestore();
    }
  }

  it("starts with a new random password on file, says so in one sentence, and the fixed one no longer works", async () => {
    legacy = await makeLegacyCluster();
    const before = await stat(path.join(legacy, "PG_VERSION"));
    const legacyPort = await freePort();
    expect(await startPrinting(legacy, legacyPort)).toEqual([
      `The embedded database in ${legacy} had no password file, so its superuser got a random password, kept in ${legacy}.password (mode 0600); the fixed password "postgres" no longer works`,
    ]);
    expect((await stat(path.join(legacy, "PG_VERSION"))).ino).toBe(before.ino); // the same cluster, not a new one
    expect((await stat(passwordFile(legacy))).mode & 0o777).toBe(0o600);
    expect(await login(`postgresql://postgres:${FIXED}@127.0.0.1:${legacyPort}/kept`)).toBe("refused 28P01");
    expect(await login(embeddedUrl(legacy, legacyPort, "kept"))).toBe("postgres");

    // Upgraded once: the next start keeps that password and says nothing.
    await legacyServer!.stop();
    expect(await startPrinting(legacy, legacyPort)).toEqual([]);
    expect(await login(embeddedUrl(legacy, legacyPort, "kept"))).toBe("postgres");
  }, 60_000);

  it("resets its ALTER SYSTEM settings, so a trust file planted as hba_file lets no one in with the old password", async () => {
    legacy = await makeLegacyCluster();
    const trust = await trustFile();
    singleUser(legacy, `ALTER SYSTEM SET hba_file = '${trust}'`);
    const legacyPort = await freePort();
    const printed = await startPrinting(legacy, legacyPort);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toContain('the fixed password "postgres" no longer works');
    expect(await login(`postgresql://postgres:${FIXED}@127.0.0.1:${legacyPort}/kept`)).toBe("refused 28P01");
    expect(readFileSync(path.join(legacy, "postgresql.auto.conf"), "utf8")).not.toContain("hba_file");
    await rm(path.dirname(trust), { recursive: true, force: true });
  }, 60_000);

  it("refuses to start, in one sentence, while a role it did not make is there; starts once they are dropped", async () => {
    legacy = await makeLegacyCluster();
    singleUser(
      legacy,
      "CREATE ROLE intruder LOGIN SUPERUSER PASSWORD 'postgres'\nCREATE ROLE \"Reader\" LOGIN\nCREATE ROLE nologin_group",
    );
    const legacyPort = await freePort();
    const refused =
      `The embedded database in ${legacy} holds what neither its migrations nor PostgreSQL made ` +
      `(role "Reader", role intruder, role nologin_group), which could run as its superuser; drop them ` +
      `(as the postgres user: postgres --single -D ${legacy} <database>, then DROP ...;) or remove ${legacy} to ` +
      `start afresh, then start again`;
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      await expect(startEmbeddedPostgres({ dir: legacy, port: legacyPort, database: "kept" })).rejects.toThrow(refused);
      // Refused at every start, not waved through once the password is on file.
      await expect(startEmbeddedPostgres({ dir: legacy, port: legacyPort, database: "kept" })).rejects.toThrow(refused);
    } finally {
      log.mockRestore();
    }
    singleUser(legacy, 'DROP ROLE intruder\nDROP ROLE "Reader"\nDROP ROLE nologin_group');
    expect(await startPrinting(legacy, legacyPort)).toEqual([]);
    expect(await login(`postgresql://postgres:${FIXED}@127.0.0.1:${legacyPort}/kept`)).toBe("refused 28P01");
    expect(await login(embeddedUrl(legacy, legacyPort, "kept"))).toBe("postgres");
  }, 60_000);
});

describe("a cluster that is the module's own", () => {
  let own: string;
  let ownPort: number;
  let cluster: EmbeddedPostgresServer | undefined;
  /** A folder the server's OS user can write to, where the plants below would leave their files. */
  let drop: string;

  beforeAll(async () => {
    own = await mkdtemp(path.join(tmpdir(), "lead-intake-own-pg-"));
    ownPort = await freePort();
    drop = await mkdtemp(path.join(tmpdir(), "lead-intake-plant-"));
    await chmod(drop, 0o777);
    cluster = await startEmbeddedPostgres({ dir: own, port: ownPort, database: "own" });
    await migrate(cluster.url);
    await restart();
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    removeEmbeddedCluster(own);
    await rm(drop, { recursive: true, force: true });
  });

  /** Stops the cluster and starts it again through the launcher's own start. */
  async function restart(): Promise<void> {
    await cluster?.stop();
    cluster = undefined;
    cluster = await startEmbeddedPostgres({ dir: own, port: ownPort, database: "own" });
  }

  /** Restarts it, expecting the start to be refused in the one sentence naming `found`; it is left stopped. */
  async function expectRefused(found: string): Promise<void> {
    await cluster!.stop();
    cluster = undefined;
    await expect(startEmbeddedPostgres({ dir: own, port: ownPort, database: "own" })).rejects.toThrow(
      `The embedded database in ${own} holds what neither its migrations nor PostgreSQL made (${found}), which ` +
        `could run as its superuser; drop them (as the postgres user: postgres --single -D ${own} <database>, then ` +
        `DROP ...;) or remove ${own} to start afresh, then start again`,
    );
    expect(runningPostmaster(own)).toBeNull();
  }

  /** A referral row, as the host writes one. */
  const INSERT_LEAD =
    "INSERT INTO referrals (referrer_customer_id, lead_name, mobile_number, status) " +
    "SELECT id, 'Planted Lead', '012-345 6789', 'new' FROM customers LIMIT 1";

  it("starts with its migrations' own triggers and functions", async () => {
    const [triggers] = await asSuperuser(
      cluster!.url,
      "SELECT count(*)::int AS n FROM pg_trigger WHERE NOT tgisinternal AND tgrelid = 'referrals'::regclass",
    );
    expect(triggers[0].n).toBeGreaterThan(0);
  });

  it("runs on the settings it writes: an archive_command written into postgresql.conf does not run", async () => {
    const ran = path.join(drop, "archived");
    await cluster!.stop();
    await appendFile(
      path.join(own, "postgresql.conf"),
      `archive_mode = on\narchive_command = 'echo %f >> ${ran}'\narchive_timeout = 1\n`,
    );
    await restart();
    const [[mode], [command]] = await asSuperuser(
      cluster!.url,
      "SHOW archive_mode",
      "SELECT source FROM pg_settings WHERE name = 'archive_command'",
      "CREATE TABLE wal_maker AS SELECT generate_series(1, 10000) AS n",
      "SELECT pg_switch_wal()",
      "DROP TABLE wal_maker",
    );
    expect([mode.archive_mode, command.source]).toEqual(["off", "default"]);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // the archiver's time to run it, were it on
    expect(existsSync(ran)).toBe(false);
    expect(readFileSync(path.join(own, "postgresql.conf"), "utf8")).not.toContain("archive_command");
  }, 60_000);

  it("keeps no per-role or per-database setting", async () => {
    await asSuperuser(
      cluster!.url,
      "ALTER ROLE postgres SET work_mem = '7MB'",
      "ALTER DATABASE own SET statement_timeout = '1234ms'",
      "ALTER ROLE postgres IN DATABASE own SET search_path = planted, public",
    );
    await restart();
    const [[settings], [workMem], [timeout]] = await asSuperuser(
      cluster!.url,
      "SELECT count(*)::int AS n FROM pg_db_role_setting",
      "SHOW work_mem",
      "SHOW statement_timeout",
    );
    expect(settings.n).toBe(0);
    expect(workMem.work_mem).not.toBe("7MB");
    expect(timeout.statement_timeout).toBe("0");
  }, 60_000);

  it("refuses a trigger that copies each new lead to a program, and writes nothing; starts once it is dropped", async () => {
    const leaked = path.join(drop, "leads");
    await asSuperuser(
      cluster!.url,
      "INSERT INTO customers (id, kind, name) VALUES ('source-1', 'source', 'Facebook Ads')",
      `CREATE FUNCTION leak_lead() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         EXECUTE format('COPY (SELECT %L, %L) TO PROGRAM %L', NEW.lead_name, NEW.mobile_number, 'cat >> ${leaked}');
         RETURN NULL; END $$`,
      "CREATE TRIGGER leak_lead AFTER INSERT ON referrals FOR EACH ROW EXECUTE FUNCTION leak_lead()",
      INSERT_LEAD,
    );
    // The plant works while it runs: the lead's name and mobile number went to the file.
    expect(readFileSync(leaked, "utf8")).toContain("Planted Lead");
    await rm(leaked);
    await expectRefused("function public.leak_lead() in own, trigger leak_lead on public.referrals in own");
    singleUser(own, "DROP TRIGGER leak_lead ON referrals\nDROP FUNCTION leak_lead()", "own");
    await restart();
    await asSuperuser(cluster!.url, INSERT_LEAD);
    expect(existsSync(leaked)).toBe(false);
  }, 60_000);

  it.each([
    {
      kind: "an event trigger",
      plant: [
        "CREATE FUNCTION planted_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN NULL; END $$",
        "CREATE EVENT TRIGGER planted_ddl ON ddl_command_end EXECUTE FUNCTION planted_ddl()",
      ],
      found: "event trigger planted_ddl in own, function public.planted_ddl() in own",
      remove: "DROP EVENT TRIGGER planted_ddl\nDROP FUNCTION planted_ddl()",
    },
    {
      kind: "an extension",
      plant: ["CREATE EXTENSION dblink"],
      found: "extension dblink in own",
      remove: "DROP EXTENSION dblink",
    },
    {
      kind: "a role that cannot log in",
      plant: ["CREATE ROLE planted_group"],
      found: "role planted_group",
      remove: "DROP ROLE planted_group",
    },
    {
      kind: "a function of the migrations with another body",
      plant: [
        `CREATE OR REPLACE FUNCTION lead_intake_lead_block_size() RETURNS INTEGER LANGUAGE sql IMMUTABLE
         AS $$ SELECT 1024 FROM (SELECT pg_catalog.pg_read_file('/etc/hostname')) f $$`,
      ],
      found: "function public.lead_intake_lead_block_size() in own",
      remove:
        "CREATE OR REPLACE FUNCTION lead_intake_lead_block_size() RETURNS INTEGER LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 1024 $$",
    },
    {
      kind: "a function in template1, which every new database copies",
      plant: ["CREATE FUNCTION planted() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$"],
      database: "template1",
      found: "function public.planted() in template1",
      remove: "DROP FUNCTION planted()",
    },
  ])(
    "refuses $kind in one sentence naming it; starts once it is dropped",
    async ({ plant, found, remove, database }) => {
      await asSuperuser(cluster!.urlOf(database ?? "own"), ...plant);
      await expectRefused(found);
      singleUser(own, remove, database ?? "own");
      await restart();
    },
    60_000,
  );
});
