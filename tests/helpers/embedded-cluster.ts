import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect } from "vitest";
import {
  removeEmbeddedCluster,
  startEmbeddedPostgres,
  type EmbeddedPostgresServer,
} from "@/lib/runtime/embedded-postgres.mjs";
import { postgresUser, reachableBinaries } from "@/lib/runtime/postgres-user.mjs";
import { freePort } from "@/scripts/process-group";
import { TEST_KEY, withKeys } from "./key";

/**
 * What the tests of the embedded PostgreSQL (tests/database/embedded-*.db.test.ts) share. Who can log in to it: only
 * who can read its password file. Its superuser runs OS commands as the server's user (COPY ... FROM PROGRAM), so a
 * guessable password, a login from another local account or a socket anyone can reach would hand that account the
 * database's user.
 */
export const asRoot = process.getuid?.() === 0;
/** The password a cluster had when every cluster shared one. */
export const FIXED = "postgres";
/** Something the operator exported that PostgreSQL has no use for. */
export const OPERATOR_SECRET = "operator-secret-value-1234";

export let dir: string;
export let port: number;
export let server: EmbeddedPostgresServer;

/** Logs in over TCP and says who it is, or the error code PostgreSQL refused with. */
export async function login(url: string): Promise<string> {
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
export async function asSuperuser(url: string, ...queries: string[]): Promise<Record<string, unknown>[][]> {
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
export function singleUser(folder: string, sql: string, database = "postgres"): string {
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
export async function trustFile(): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), "lead-intake-trust-"));
  await chmod(folder, 0o755);
  const file = path.join(folder, "trust.conf");
  await writeFile(file, "host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n", { mode: 0o644 });
  return file;
}

/** Names of the environment variables of a process, from /proc. */
export function environmentOf(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return new Map(entries.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
}

/**
 * What PostgreSQL may carry in its environment: what the launcher passes (PATH, the locale, the time zone), what
 * PostgreSQL sets itself (LC_* of the cluster, PGSYSCONFDIR) and what the shell of COPY ... FROM PROGRAM adds.
 */
export const ALLOWED_ENVIRONMENT = /^(PATH|LANG|LANGUAGE|LC_[A-Z_]+|TZ|TZDIR|PGSYSCONFDIR|PWD|SHLVL|_)$/;

/** A command run as the `nobody` OS user: its exit status and what it printed. */
export function asNobody(command: string[], env: Record<string, string> = {}) {
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

/** Starts the embedded PostgreSQL as the launcher does before the file's tests, and removes its cluster after them. */
export function setUpEmbeddedCluster() {
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
}
