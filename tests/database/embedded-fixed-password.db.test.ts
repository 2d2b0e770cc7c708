import { spawnSync } from "node:child_process";
import { chown, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  embeddedUrl,
  passwordFile,
  removeEmbeddedCluster,
  startEmbeddedPostgres,
  type EmbeddedPostgresServer,
} from "@/lib/runtime/embedded-postgres.mjs";
import { postgresUser, reachableBinaries } from "@/lib/runtime/postgres-user.mjs";
import { freePort } from "@/scripts/process-group";
import { FIXED, login, singleUser, trustFile } from "../helpers/embedded-cluster";

describe("a cluster made with the fixed password (no password file)", () => {
  let legacy: string;
  let legacyServer: EmbeddedPostgresServer | undefined;

  afterEach(async () => {
    await legacyServer?.stop();
    removeEmbeddedCluster(legacy);
  });

  /** initdb of a legacy cluster, one password for all: password logins, superuser postgres/postgres. */
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
