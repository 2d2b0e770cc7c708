// `npm start`: builds the app, then serves it with `next start` (`npm run serve`: no build; `npm run dev`: `next
// dev`). Without DATABASE_URL it runs an embedded PostgreSQL, and without LEADS_API_KEY it writes one to .env.local
// (0600, never printed). Lifecycle and failures: docs/operating.md, "The launcher in production".
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import { shortKeyProblem } from "../api/api-key.mjs";
import { ENV_FILE, loadLocalEnv, LocalEnvError, localBaseUrl, localPort } from "./local-env.mjs";
import { fileURLToPath } from "node:url";
import { embeddedDataDir, portFree, shownPath, startEmbeddedPostgres, StartupError } from "./embedded-postgres.mjs";
import { checkEarlierLauncher, forgetLauncher, recordLauncher } from "./launcher-record.mjs";
import { heapArgs } from "./next-server-heap.mjs";
import { REQUEST_TIMEOUT_MS } from "../preload/server-timeouts.mjs";
import { numericSetting, settingsProblem } from "../settings.mjs";

/** @typedef {"generated" | "file" | "environment"} KeySource Where the key came from. */

/** PORT, read once .env.local is loaded, so the launcher and the importer agree on it. */
let port = 0;
/**
 * How long Next may take to finish in-flight requests on shutdown before it is killed: a request's own bound, and a
 * little.
 */
const DRAIN_MS = REQUEST_TIMEOUT_MS + 5_000;

/** The embedded PostgreSQL while it starts, then once it runs. */
/** @type {Promise<import("./embedded-postgres.mjs").EmbeddedPostgresServer> | undefined} */
let databaseStarting;
/** @type {import("./embedded-postgres.mjs").EmbeddedPostgresServer | undefined} */
let database;
/** @type {import("node:child_process").ChildProcess | undefined} */
let server;
/** The build or the database preparation while it runs (each a child process of its own). */
/** @type {Set<{ child: import("node:child_process").ChildProcess, detached: boolean }>} */
const stages = new Set();
let stopping = false;
const dev = process.argv.includes("--dev");

for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => shutdown(0));
try {
  await main();
} catch (error) {
  fail(
    error instanceof StartupError
      ? error.message
      : `The launcher failed (${/** @type {Error | undefined} */ (error)?.message ?? error}); fix that and start again`,
  );
}

async function main() {
  const keyFromEnvironment = Boolean(process.env.LEADS_API_KEY);
  try {
    loadLocalEnv(); // DATABASE_URL and the like too
  } catch (error) {
    throw error instanceof LocalEnvError ? new StartupError(error.message) : error;
  }
  const problem = shortKeyProblem(process.env) ?? settingsProblem(process.env);
  if (problem) throw new StartupError(problem);
  port = localPort();
  const keySource = keyFromEnvironment ? "environment" : process.env.LEADS_API_KEY ? "file" : generateKey();
  const dir = process.env.DATABASE_URL ? null : embeddedDataDir();
  if (dir) await checkEarlierLauncher(dir);
  if (!(await portFree(port))) {
    throw new StartupError(
      `Port ${port} is already in use (another server, perhaps an earlier npm start); stop it, or set PORT to a free port`,
    );
  }
  if (dir) {
    databaseStarting = startEmbeddedPostgres({ dir, port: numericSetting("EMBEDDED_PG_PORT"), database: "leads" });
    database = await databaseStarting;
    if (stopping) return;
    recordLauncher({ port, postgresPid: database.pid });
    process.env.DATABASE_URL = database.url;
    database.exited.then((how) => {
      if (!stopping)
        shutdown(
          1,
          `The embedded PostgreSQL stopped unexpectedly (${how}); stopping the server too, so that a supervisor can restart the service`,
        );
    });
    console.log(`Embedded PostgreSQL running, data in ${shownPath(dir)}`);
  }

  if (!dev && !process.argv.includes("--no-build")) {
    // the OpenAPI document, then next build; in a process group of its own, so that stopping ends npm's children too
    const built = await runStage("npm", ["run", "build"], { detached: true });
    if (stopping) return;
    if (built !== 0)
      throw new StartupError("The build failed (see its output above); fix that and run npm start again");
  }
  if (stopping) return;
  startNext();
  // Beside the server, so that liveness answers while the migrations wait for their lock; data requests and
  // readiness wait for the server's own preparation (instrumentation.ts), which finds this one's work done.
  // A failure stops the service: the child has printed its one sentence.
  const prepared = await runStage(process.execPath, ["--import", "tsx", "scripts/prepare-db.ts"]);
  if (stopping) return;
  if (prepared !== 0) return shutdown(1);
  await announceWhenLive(keySource);
}

/**
 * A start-up stage as a child process, its output inherited; resolves with its exit code (1 when it could not run).
 * @param {string} command
 * @param {string[]} args
 * @returns {Promise<number>}
 */
function runStage(command, args, { detached = false } = {}) {
  const child = spawn(command, args, { stdio: "inherit", detached });
  stages.add({ child, detached });
  return new Promise((resolve) => {
    child.once("error", () => resolve(1));
    child.once("exit", (code) => {
      for (const stage of stages) if (stage.child === child) stages.delete(stage);
      resolve(code ?? 1);
    });
  });
}

/** Ends the stages still running (a build's whole process group) and waits until they have exited. */
async function stopStages() {
  await Promise.all(
    [...stages].map(({ child, detached }) => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        if (detached) process.kill(-(/** @type {number} */ (child.pid)), "SIGTERM");
        else child.kill("SIGTERM");
      } catch {
        return undefined; // exited meanwhile
      }
      return exited;
    }),
  );
}

function startNext() {
  // Next itself, not through npx: a signal to the launcher must reach the server.
  const nextBin = fileURLToPath(import.meta.resolve("next/dist/bin/next"));
  if (dev) {
    // `next dev` serves from a child process of its own: a group of its own, so that stopping ends that child too.
    // No preload: request timeouts and the method guard are the production server's (docs/host-guide.md).
    server = spawn(process.execPath, [nextBin, "dev", "-p", String(port)], { stdio: "inherit", detached: true });
    server.on("exit", serverExited);
    return;
  }
  const preload = fileURLToPath(new URL("../preload/next-server-preload.mjs", import.meta.url));
  // Next writes to the launcher's own stdout: relaying each access log line through this process costs CPU per request
  // (docs/decisions.md, "The launcher does not relay Next's output").
  server = spawn(process.execPath, [...heapArgs(), "--import", preload, nextBin, "start", "-p", String(port)], {
    stdio: ["inherit", "inherit", "inherit", "ipc"],
  });
  server.on("exit", serverExited);
}

/**
 * @param {number | null} code
 * @param {NodeJS.Signals | null} signal
 */
function serverExited(code, signal) {
  if (!stopping)
    shutdown(
      1,
      `The Next.js server stopped unexpectedly (${signal ?? `exit ${code}`}); stopping the database too, so that a supervisor can restart the service`,
    );
}

/**
 * Once the database is prepared and the server answers its liveness check (after Next's "Ready"): where the service
 * is and how to call it.
 * @param {KeySource} keySource
 */
async function announceWhenLive(keySource) {
  const live = `http://127.0.0.1:${port}/api/health/live`;
  while (!stopping && server?.exitCode === null) {
    try {
      if ((await fetch(live, { signal: AbortSignal.timeout(2_000) })).ok) return announce(keySource);
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Where the service is and how to call it.
 * @param {KeySource} keySource
 */
function announce(keySource) {
  const base = localBaseUrl({ PORT: String(port) });
  const key = {
    generated: `a new key was generated into ${ENV_FILE}`,
    file: `the key is in ${ENV_FILE}`,
    environment: "the key is the LEADS_API_KEY you set",
  }[keySource];
  const read = keySource === "environment" ? "" : `; read it with: KEY=$(sed -n 's/^LEADS_API_KEY=//p' ${ENV_FILE})`;
  // One write, so that nothing Next prints lands between these lines.
  console.log(
    [
      `\nLead Intake Service ready at ${base} (API under ${base}/api/leads)`,
      `API documentation: ${base}/docs`,
      `API key: ${key}${read}`,
      `Try it: curl -H "Authorization: Bearer $KEY" ${base}/api/leads/sources\n`,
    ].join("\n"),
  );
}

/**
 * Next drains first (it stops accepting and finishes what it serves on SIGTERM), then the database stops.
 * @param {number} code
 * @param {string} [why]
 */
async function shutdown(code, why) {
  if (stopping) return;
  stopping = true;
  if (why) console.error(why);
  await stopStages();
  const running = server;
  if (running && running.exitCode === null && running.signalCode === null) {
    const exited = new Promise((resolve) => running.once("exit", resolve));
    const signalServer = (/** @type {NodeJS.Signals} */ signal) => {
      try {
        if (dev) process.kill(-(/** @type {number} */ (running.pid)), signal);
        else running.kill(signal);
      } catch {
        // exited meanwhile
      }
    };
    signalServer("SIGTERM");
    const timer = setTimeout(() => signalServer("SIGKILL"), DRAIN_MS);
    await exited;
    clearTimeout(timer);
  }
  // A stop during the database's start waits for it to be up, then stops it: no cluster is left behind.
  await (database ?? (await databaseStarting?.catch(() => undefined)))?.stop();
  forgetLauncher();
  process.exit(code);
}

/** @param {string} sentence */
function fail(sentence) {
  console.error(sentence);
  shutdown(1);
}

/** @returns {KeySource} */
function generateKey() {
  const key = `lk_${randomBytes(32).toString("base64url")}`;
  // A new file is created with 0600 in the same open() call (mode applies at creation), never briefly readable.
  appendFileSync(ENV_FILE, `LEADS_API_KEY=${key}\n`, { mode: 0o600 });
  process.env.LEADS_API_KEY = key;
  return "generated";
}
