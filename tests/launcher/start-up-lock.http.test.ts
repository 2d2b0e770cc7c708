import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { MigrationLockTimeout, readMigrations } from "@/lib/db/migrate";
import { freePort, startProcessGroup } from "@/scripts/process-group";
import { TEST_KEY } from "../helpers/api";
import { adminQuery, createTestDatabase, databaseUrl, type TestDatabase } from "../helpers/db";
import { assertContract } from "../helpers/openapi";

/**
 * Start-up and the migrations' advisory lock: a login with no privileges at all can take
 * pg_advisory_lock(72707369). Start-up waits for it at most LEADS_MIGRATION_LOCK_TIMEOUT, then fails in one
 * sentence saying how to find the holder; liveness answers meanwhile and SIGTERM ends the launcher at once.
 * Each migration applied is one log line.
 */
const LOCK = 72707369;
let db: TestDatabase;
let role: string;
let holder: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  role = `nobody_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE ROLE ${role} LOGIN PASSWORD 'nobody'`);
}, 60_000);

afterAll(async () => {
  await holder?.end().catch(() => {});
  await db?.sql.end();
  await adminQuery(`DROP ROLE IF EXISTS ${role}`);
});

/** A session of the role with no grants, holding the migrations' lock in the test database. */
async function holdLock(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: db.url.replace(/\/\/[^@]*@/, `//${role}:nobody@`) });
  await client.connect();
  await client.query("SELECT pg_advisory_lock($1)", [LOCK]);
  return client;
}

interface Run {
  pid: number;
  port: number;
  base: string;
  output(): string;
  /** Exit code or signal, with when it came (Date.now()). */
  exited: Promise<{ how: number | string; at: number }>;
}

/** The launcher (`npm run serve`) against `url`, not waited for: these tests watch it start. */
async function launch(url: string, env: Record<string, string> = {}): Promise<Run> {
  const port = await freePort();
  let output = "";
  const child = spawn(process.execPath, ["lib/runtime/start.mjs", "--no-build"], {
    env: { ...process.env, PORT: String(port), DATABASE_URL: url, LEADS_API_KEY: TEST_KEY, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<{ how: number | string; at: number }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ how: signal ?? code!, at: Date.now() })),
  );
  return { pid: child.pid!, port, base: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/** The launcher against the test database while the lock is held, once its server answers liveness. */
async function launchWaiting(): Promise<Run> {
  holder = await holdLock();
  const run = await launch(db.url);
  const live = await until(async () => (await status(`${run.base}/api/health/live`)) === 200, 60_000);
  expect(live, run.output()).toBe(true);
  return run;
}

/** GET base+path, its answer held to the OpenAPI document; its status. */
async function documented(base: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
  assertContract("GET", path, { status: response.status, headers: response.headers, body: await response.json() });
  return response.status;
}

async function status(url: string): Promise<number | null> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return null;
  }
}

async function until(check: () => Promise<boolean> | boolean, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/** Every process below `pid` (children, grandchildren...), from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const child of parents.get(parent) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

describe("start-up while another session holds the migrations' lock", () => {
  it("with a short bound, the launcher exits 1 with one sentence naming the lock and how to find its holder", async () => {
    holder = await holdLock();
    const run = await launch(db.url, { LEADS_MIGRATION_LOCK_TIMEOUT: "3" });
    const { how } = await run.exited;
    await holder.end();
    expect(how).toBe(1);
    const sentence = `${new MigrationLockTimeout(3).message}, then start again`;
    expect(sentence).toContain(`pg_advisory_lock(${LOCK})`);
    expect(sentence).toContain(
      `FROM pg_locks JOIN pg_stat_activity USING (pid) WHERE locktype = 'advisory' AND objid = ${LOCK}`,
    );
    expect(run.output().split("\n")).toContain(sentence);
    // The query it gives finds the holder: the role with no privileges.
    holder = await holdLock();
    const query = /find it with (SELECT .*? AND granted)/.exec(sentence)![1];
    const { rows } = await db.sql.query<{ usename: string }>(query);
    expect(rows.map((r) => r.usename)).toEqual([role]);
    await holder.end();
  }, 120_000);

  it("with the default bound, liveness answers 200 while readiness answers 503; released, the service serves", async () => {
    const run = await launchWaiting();
    const base = run.base;
    try {
      expect(await documented(base, "/api/health/ready")).toBe(503);
      expect(await documented(base, "/api/health/live")).toBe(200);
      await holder.end();
      expect(await until(async () => (await status(`${base}/api/health/ready`)) === 200, 30_000)).toBe(true);
      expect(await documented(base, "/api/leads/sources", { Authorization: `Bearer ${TEST_KEY}` })).toBe(200);
    } finally {
      process.kill(run.pid, "SIGTERM");
      await run.exited;
    }
  }, 150_000);

  it("SIGTERM during the wait ends the launcher promptly and leaves none of its processes or database sessions", async () => {
    // Waiting: the server answers liveness, and the database preparation is a child of the launcher.
    const run = await launchWaiting();
    try {
      /** The sessions waiting for the migrations' lock. */
      const waiters = async () => {
        const { rows } = await db.sql.query<{ pid: number }>(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted",
          [LOCK],
        );
        return rows.map((row) => row.pid);
      };
      // Liveness can answer before they reach the lock: the preparation child, started beside Next, and the server's.
      expect(await until(async () => (await waiters()).length === 2, 60_000), run.output()).toBe(true);
      const sessions = await waiters();
      const processes = descendants(run.pid);
      expect(processes.length).toBeGreaterThanOrEqual(2);
      const sent = Date.now();
      process.kill(run.pid, "SIGTERM");
      const { how, at } = await run.exited;
      expect(how).toBe(0);
      expect(at - sent).toBeLessThan(10_000);
      expect(processes.filter(alive)).toEqual([]);
      // Their sessions end with them, while the lock is still held: none waits on for it.
      const remaining = async () => {
        const { rows } = await db.sql.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE pid = ANY ($1)", [
          sessions,
        ]);
        return rows.map((row) => row.pid);
      };
      expect(await until(async () => (await remaining()).length === 0, 2_000), String(await remaining())).toBe(true);
      expect(await waiters()).toEqual([]);
    } finally {
      await holder.end();
    }
  }, 120_000);
});

describe("a host's own `next start` while another session holds the migrations' lock", () => {
  it("serves liveness, answers readiness 503, and logs the sentence once the short bound has passed", async () => {
    holder = await holdLock();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const next = fileURLToPath(import.meta.resolve("next/dist/bin/next"));
    const server = await startProcessGroup(
      process.execPath,
      [next, "start", "-p", String(port)],
      { DATABASE_URL: db.url, LEADS_MIGRATION_LOCK_TIMEOUT: "2" },
      `${base}/api/health/live`,
    );
    try {
      expect(await documented(base, "/api/health/live")).toBe(200);
      const sentence = `${new MigrationLockTimeout(2).message}; start-up is tried again by the next request or readiness check`;
      const logged = () =>
        server
          .output()
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((line) => line.msg === sentence);
      expect(await until(() => logged().length > 0, 30_000), server.output()).toBe(true);
      expect(logged()[0]).toMatchObject({ level: "error", kind: "lock-timeout", code: "55P03" });
      expect(await documented(base, "/api/health/ready")).toBe(503);
      expect(await documented(base, "/api/health/live")).toBe(200);
    } finally {
      await holder.end();
      await server.stop();
    }
  }, 120_000);
});

describe("migrations applied at start", () => {
  it("log one JSON line each, naming the migration and nothing of its SQL", async () => {
    const name = `fresh_${randomBytes(4).toString("hex")}`;
    await adminQuery(`CREATE DATABASE "${name}"`);
    const run = await launch(databaseUrl(name));
    try {
      const ready = await until(async () => (await status(`${run.base}/api/health/ready`)) === 200, 90_000);
      expect(ready, run.output()).toBe(true);
      const lines = run
        .output()
        .split("\n")
        .filter((line) => line.includes('"migration applied"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const names = (await readMigrations()).map((m) => m.name);
      expect(lines.map((line) => line.migration).sort()).toEqual(names);
      expect(lines).not.toHaveLength(0);
      for (const line of lines) {
        expect(Object.keys(line).sort()).toEqual(["level", "migration", "msg", "time"]);
        expect(line.level).toBe("info");
      }
    } finally {
      process.kill(run.pid, "SIGTERM");
      await run.exited;
    }
  }, 150_000);
});
