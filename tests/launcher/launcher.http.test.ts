import { spawnSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import pg from "pg";
import { MIN_KEY_LENGTH } from "@/lib/api/api-key.mjs";
import { embeddedUrl, runningPostmaster } from "@/lib/runtime/embedded-postgres.mjs";
import { authorised, sendRaw } from "../helpers/hostile";
import { makeClone, startLauncher, type Clone, type Launcher } from "../helpers/clone";
import { listeningPid } from "../helpers/process-tree";
import { validLead } from "../helpers/lead";

/**
 * The launcher (`npm start` / `npm run serve`) as an operator runs it, each test in a clone of its own with its own
 * embedded PostgreSQL: shutdown drains Next before the database stops, the death of either process ends the launcher
 * with exit 1, a killed launcher leaves nothing that blocks the next start, and every failure is one sentence saying
 * what to do.
 */
let clone: Clone;
const launchers: Launcher[] = [];

beforeEach(async () => {
  clone = await makeClone();
});

afterEach(async () => {
  for (const launcher of launchers.splice(0)) await launcher.stop();
  const left = runningPostmaster(dataDir());
  if (left) process.kill(left.pid, "SIGINT");
  await clone.remove();
}, 60_000);

const dataDir = () => path.join(clone.dir, ".data", "postgres");

async function launch(env: Record<string, string | undefined> = {}): Promise<Launcher> {
  const launcher = await startLauncher(clone, env);
  launchers.push(launcher);
  return launcher;
}

/** The launcher in a clone, run to its end: its exit status and everything it printed. */
function runInClone(args: string[], env: Record<string, string | undefined>) {
  const result = spawnSync(process.execPath, args, {
    cwd: clone.dir,
    env: { ...process.env, DATABASE_URL: undefined, ...env },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function lead(i: number) {
  return validLead({ leadName: `Drain Lead ${i}`, leadMobileNumber: `012-777 ${String(1000 + i)}` });
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe("the launcher's lifecycle", () => {
  it("on SIGTERM under load, drains Next before stopping the database: no 500, every 201 stored, exit 0", async () => {
    const launcher = await launch();
    const postgres = runningPostmaster(dataDir())!;
    const statuses: number[] = [];
    const created: number[] = [];
    let failures = 0;
    let stop = false;
    // Eight keep-alive clients (fetch reuses connections) posting and listing until the server is gone.
    const clients = Array.from({ length: 8 }, async (_, c) => {
      for (let i = 0; !stop; i++) {
        const request =
          i % 2 ? authorised("GET", "/api/leads?limit=5") : authorised("POST", "/api/leads", lead(c * 10_000 + i));
        try {
          const response = await sendRaw(request, launcher.baseUrl, 10_000);
          statuses.push(response.status);
          if (response.status === 201) created.push(JSON.parse(response.text).lead.referralId);
        } catch {
          failures++; // refused or closed once Next stopped accepting: the client may retry elsewhere
          if (failures > 200) return;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    process.kill(launcher.pid, "SIGTERM");
    expect(await launcher.exited).toBe(0);
    stop = true;
    await Promise.all(clients);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(created.length).toBeGreaterThan(0);
    expect(await gone(postgres.pid, 10_000)).toBe(true);
    // Every acknowledged lead is there after a restart on the same data.
    const again = await launch();
    const sql = new pg.Client({ connectionString: embeddedUrl(dataDir(), again.postgresPort, "leads") });
    await sql.connect();
    try {
      const { rows } = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM referrals WHERE id = ANY($1)", [
        created,
      ]);
      expect(rows[0].n).toBe(created.length);
    } finally {
      await sql.end();
    }
  }, 120_000);

  it("notices the death of its database and exits 1 with one sentence, stopping Next", async () => {
    const launcher = await launch();
    process.kill(runningPostmaster(dataDir())!.pid, "SIGKILL");
    expect(await launcher.exited).toBe(1);
    expect(launcher.output()).toContain(
      "The embedded PostgreSQL stopped unexpectedly (SIGKILL); stopping the server too",
    );
    expect(listeningPid(launcher.port)).toBeNull();
  }, 60_000);

  it("notices the death of Next and exits 1, stopping the database", async () => {
    const launcher = await launch();
    const postgres = runningPostmaster(dataDir())!;
    process.kill(listeningPid(launcher.port)!, "SIGKILL");
    expect(await launcher.exited).toBe(1);
    expect(launcher.output()).toContain("The Next.js server stopped unexpectedly (SIGKILL); stopping the database too");
    expect(await gone(postgres.pid, 10_000)).toBe(true);
  }, 60_000);

  it("after kill -9 of the launcher, Next exits by itself and the next start stops the orphaned PostgreSQL and serves", async () => {
    const first = await launch();
    const orphan = runningPostmaster(dataDir())!;
    process.kill(first.pid, "SIGKILL");
    await first.exited;
    const deadline = Date.now() + 15_000;
    while (listeningPid(first.port) !== null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(listeningPid(first.port)).toBeNull();
    expect(runningPostmaster(dataDir())?.pid).toBe(orphan.pid); // PostgreSQL cannot notice; the next start cleans up

    const second = await launch({ EMBEDDED_PG_PORT: String(orphan.port) });
    expect(second.output()).toContain(
      `Stopping the embedded PostgreSQL (pid ${orphan.pid}) left running by a launcher that was killed`,
    );
    expect((await sendRaw(authorised("GET", "/api/leads/sources"), second.baseUrl)).status).toBe(200);
  }, 120_000);
});

describe("the launcher's messages", () => {
  it("prints the base URL, the docs URL and how to read the generated key after Next's Ready", async () => {
    const launcher = await launch({ LEADS_API_KEY: undefined });
    // Announced once the server answers its liveness check, which the launcher polls every 100 ms.
    const deadline = Date.now() + 5_000;
    while (!launcher.output().includes("Lead Intake Service ready at") && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const output = launcher.output();
    const ready = output.indexOf("Ready in");
    expect(ready).toBeGreaterThan(-1);
    const after = output.slice(ready);
    expect(after).toContain(`Lead Intake Service ready at http://localhost:${launcher.port}`);
    expect(after).toContain(`API documentation: http://localhost:${launcher.port}/docs`);
    expect(after).toContain(
      "API key: a new key was generated into .env.local; read it with: KEY=$(sed -n 's/^LEADS_API_KEY=//p' .env.local)",
    );
    const key = /^LEADS_API_KEY=(.+)$/m.exec(readFileSync(path.join(clone.dir, ".env.local"), "utf8"))![1];
    expect(output).not.toContain(key);
    expect(statSync(path.join(clone.dir, ".env.local")).mode & 0o777).toBe(0o600);
    const listed = await sendRaw(authorised("GET", "/api/leads/sources", undefined, key), launcher.baseUrl);
    expect(listed.status).toBe(200);
  }, 60_000);

  it("refuses a second start in the same clone in one sentence naming the running server", async () => {
    const first = await launch();
    const second = runInClone(["lib/runtime/start.mjs", "--no-build"], {
      PORT: String(first.port + 1),
      EMBEDDED_PG_PORT: String(first.postgresPort + 1),
    });
    expect(second.status).toBe(1);
    expect(second.output.trim()).toBe(
      `The embedded database in .data/postgres is already in use by the server on port ${first.port} (launcher pid ${first.pid}); stop that server first, or set DATABASE_URL to run another one`,
    );
  }, 60_000);

  it("refuses a port in use in one sentence", async () => {
    const first = await launch();
    const other = runInClone(["lib/runtime/start.mjs", "--no-build"], {
      PORT: String(first.port),
      DATABASE_URL: "postgresql://unused@127.0.0.1:1/unused",
    });
    expect(other.status).toBe(1);
    expect(other.output.trim()).toBe(
      `Port ${first.port} is already in use (another server, perhaps an earlier npm start); stop it, or set PORT to a free port`,
    );
  }, 60_000);

  it("makes an existing .env.local private (0600) and refuses its key when it is too short, in one sentence", () => {
    const file = path.join(clone.dir, ".env.local");
    writeFileSync(file, "LEADS_API_KEY=short-key-0123\n", { mode: 0o644 });
    const refused = runInClone(["lib/runtime/start.mjs", "--no-build"], {
      LEADS_API_KEY: undefined,
      DATABASE_URL: "postgresql://unused@127.0.0.1:1/unused",
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(refused.status).toBe(1);
    expect(refused.output.trim()).toBe(
      `LEADS_API_KEY is 14 characters long, under the minimum of ${MIN_KEY_LENGTH}; set a longer random key (for example from: openssl rand -base64 32) and start again`,
    );
  });

  it.each([
    { LEADS_API_KEY: "k".repeat(MIN_KEY_LENGTH - 1) },
    { LEADS_API_KEY: "k".repeat(MIN_KEY_LENGTH), LEADS_API_KEY_PREVIOUS: "old-short-key" },
  ])("refuses a key under the minimum length from the environment before starting anything: %j", (keys) => {
    const refused = runInClone(["lib/runtime/start.mjs", "--no-build"], {
      ...keys,
      DATABASE_URL: "postgresql://unused@127.0.0.1:1/unused",
    });
    expect(refused.status).toBe(1);
    expect(refused.output.trim()).toMatch(
      new RegExp(
        `^LEADS_API_KEY(_PREVIOUS)? is \\d+ characters long, under the minimum of ${MIN_KEY_LENGTH}; [^\n]+ and start again$`,
      ),
    );
    expect(refused.output).not.toContain(keys.LEADS_API_KEY_PREVIOUS ?? keys.LEADS_API_KEY);
  });

  it("db:seed finds the running server's database whatever its EMBEDDED_PG_PORT", async () => {
    await launch();
    const seeded = runInClone(["node_modules/.bin/tsx", "scripts/seed.ts", "prisma/seed/demo.json"], {
      EMBEDDED_PG_PORT: undefined,
    });
    expect(seeded.output).toMatch(
      /^Seeded \d+ users, \d+ persons, \d+ sources and \d+ referral records from prisma\/seed\/demo.json\.$/m,
    );
    expect(seeded.status).toBe(0);
  }, 60_000);

  it.each([
    [
      ["nothere.json"],
      {},
      "Seeding failed: cannot read nothere.json (ENOENT); give the fixture file, for example: npm run db:seed -- prisma/seed/demo.json",
    ],
    [["package.json"], {}, "Seeding failed: package.json is not a valid fixture ("],
    [
      ["prisma/seed/demo.json"],
      { DATABASE_URL: "postgresql://postgres:postgres@127.0.0.1:1/leads" },
      "Seeding failed: the database could not be reached (ECONNREFUSED); check DATABASE_URL",
    ],
    [[], {}, "Seeding needs a fixture: give the fixture file, for example: npm run db:seed -- prisma/seed/demo.json"],
  ])(
    "db:seed %j says what happened and what to do in one line",
    (args, env, sentence) => {
      const seeded = runInClone(["node_modules/.bin/tsx", "scripts/seed.ts", ...args], env);
      expect(seeded.status).not.toBe(0);
      const lines = seeded.output.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0].startsWith(sentence)).toBe(true);
    },
    60_000,
  );
});
