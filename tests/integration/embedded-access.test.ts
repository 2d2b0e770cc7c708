import { spawnSync } from "node:child_process";
import { chown, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  embeddedUrl,
  passwordFile,
  removeEmbeddedCluster,
  startEmbeddedPostgres,
  type EmbeddedPostgresServer,
} from "@/lib/runtime/embedded-postgres.mjs";
import { postgresUser, reachableBinaries } from "@/lib/runtime/postgres-user.mjs";
import { freePort } from "@/scripts/process-group";
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

let dir: string;
let port: number;
let server: EmbeddedPostgresServer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "lead-intake-access-pg-"));
  port = await freePort();
  server = await startEmbeddedPostgres({ dir, port, database: "access", persistent: false });
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

/** A command run as the `nobody` OS user: its exit status and what it printed. */
function asNobody(command: string[], env: Record<string, string> = {}) {
  const run = spawnSync("runuser", ["-u", "nobody", "--", "env", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...command], {
    encoding: "utf8",
    timeout: 30_000,
  });
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
    expect(sockets.filter((s) => s.address !== "0100007F" && s.address !== "00000000000000000000000001000000")).toEqual([]);
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
});
