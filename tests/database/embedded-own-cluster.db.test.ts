import { appendFile, chmod, mkdtemp, rm } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeEmbeddedCluster,
  runningPostmaster,
  startEmbeddedPostgres,
  type EmbeddedPostgresServer,
} from "@/lib/runtime/embedded-postgres.mjs";
import { migrate } from "@/lib/db/migrate";
import { freePort } from "@/scripts/process-group";
import { asSuperuser, singleUser } from "../helpers/embedded-cluster";

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
