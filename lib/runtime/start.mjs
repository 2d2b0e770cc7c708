// `npm start`: builds the app, then serves it with `next start`. Without
// DATABASE_URL it runs an embedded PostgreSQL whose data lives in .data/postgres;
// without LEADS_API_KEY it generates one into .env.local (never printed: keys
// stay out of logs) and shows how to read it once the server is ready. .env.local
// holds that key, so it is kept readable by its owner only (mode 0600), and a key
// under the minimum length (lib/api/api-key.mjs) is refused before anything starts.
// `npm run serve` does the same without the build step.
//
// Lifecycle (docs/operating.md, "The launcher in production"): on SIGTERM or SIGINT
// Next drains first (stops accepting, finishes what it serves), then the database
// stops. If either of them dies, the launcher stops the other and exits 1 so that a
// supervisor restarts the service. Every failure is one sentence: what happened and
// what to do.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, chmodSync, existsSync, statSync } from "node:fs";
import { shortKeyProblem } from "../api/api-key.mjs";
import { fileURLToPath } from "node:url";
import { embeddedDataDir, portFree, shownPath, startEmbeddedPostgres, StartupError } from "./embedded-postgres.mjs";
import { checkEarlierLauncher, forgetLauncher, recordLauncher } from "./launcher-record.mjs";
import { heapArgs } from "./next-server-heap.mjs";
import { REQUEST_TIMEOUT_MS } from "./server-timeouts.mjs";

const ENV_FILE = ".env.local";
const port = Number(process.env.PORT ?? 3000);
/** How long Next may take to finish in-flight requests on shutdown before it is killed: a request's own bound, and a little. */
const DRAIN_MS = REQUEST_TIMEOUT_MS + 5_000;

let database;
let server;
let stopping = false;

for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => shutdown(0));
try {
  await main();
} catch (error) {
  fail(error instanceof StartupError ? error.message : `The launcher failed (${error?.message ?? error}); fix that and start again`);
}

async function main() {
  const keyFromEnvironment = Boolean(process.env.LEADS_API_KEY);
  if (existsSync(ENV_FILE)) {
    keepPrivate(ENV_FILE);
    process.loadEnvFile(ENV_FILE); // DATABASE_URL and the like too
  }
  const keyProblem = shortKeyProblem(process.env);
  if (keyProblem) throw new StartupError(keyProblem);
  const keySource = keyFromEnvironment ? "environment" : process.env.LEADS_API_KEY ? "file" : generateKey();
  const dir = process.env.DATABASE_URL ? null : embeddedDataDir();
  if (dir) await checkEarlierLauncher(dir);
  if (!(await portFree(port))) {
    throw new StartupError(`Port ${port} is already in use (another server, perhaps an earlier npm start); stop it, or set PORT to a free port`);
  }
  if (dir) {
    database = await startEmbeddedPostgres({ dir, port: Number(process.env.EMBEDDED_PG_PORT ?? 54329), database: "leads" });
    recordLauncher({ port, postgresPid: database.pid });
    process.env.DATABASE_URL = database.url;
    database.exited.then((how) => {
      if (!stopping) shutdown(1, `The embedded PostgreSQL stopped unexpectedly (${how}); stopping the server too, so that a supervisor can restart the service`);
    });
    console.log(`Embedded PostgreSQL running, data in ${shownPath(dir)}`);
  }

  if (!process.argv.includes("--no-build")) {
    // the OpenAPI document, then next build
    if (spawnSync("npm", ["run", "build"], { stdio: "inherit" }).status !== 0) throw new StartupError("The build failed (see its output above); fix that and run npm start again");
  }
  // Migrations and the configured default sources are in place before the server
  // starts, so no request (a listing included) is the one that writes them.
  if (spawnSync("npx", ["tsx", "scripts/prepare-db.ts"], { stdio: "inherit" }).status !== 0) {
    throw new StartupError("Preparing the database failed (see the line above); fix that and start again");
  }
  if (stopping) return;
  startNext(keySource);
}

function startNext(keySource) {
  // Next itself, not through npx: a signal to the launcher must reach the server.
  const nextBin = fileURLToPath(import.meta.resolve("next/dist/bin/next"));
  const preload = fileURLToPath(new URL("./next-server-preload.mjs", import.meta.url));
  // Next writes to the launcher's own stdout: relaying each access log line through this process cost
  // 0.04 to 0.06 ms of CPU per request (docs/decisions.md).
  server = spawn(process.execPath, [...heapArgs(), "--import", preload, nextBin, "start", "-p", String(port)], {
    stdio: ["inherit", "inherit", "inherit", "ipc"],
  });
  announceWhenLive(keySource);
  server.on("exit", (code, signal) => {
    if (!stopping) shutdown(1, `The Next.js server stopped unexpectedly (${signal ?? `exit ${code}`}); stopping the database too, so that a supervisor can restart the service`);
  });
}

/** Once the server answers its liveness check (after Next's "Ready"): where the service is and how to call it. */
async function announceWhenLive(keySource) {
  const live = `http://127.0.0.1:${port}/api/health/live`;
  while (!stopping && server.exitCode === null) {
    try {
      if ((await fetch(live, { signal: AbortSignal.timeout(2_000) })).ok) return announce(keySource);
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Where the service is and how to call it. */
function announce(keySource) {
  const base = `http://localhost:${port}`;
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

/** Next drains first (it stops accepting and finishes what it serves on SIGTERM), then the database stops. */
async function shutdown(code, why) {
  if (stopping) return;
  stopping = true;
  if (why) console.error(why);
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    const timer = setTimeout(() => server.kill("SIGKILL"), DRAIN_MS);
    await exited;
    clearTimeout(timer);
  }
  await database?.stop();
  forgetLauncher();
  process.exit(code);
}

function fail(sentence) {
  console.error(sentence);
  shutdown(1);
}

/** An existing file readable by group or others (an editor's or a copy's 0644) is made 0600 before it is read. */
function keepPrivate(file) {
  if ((statSync(file).mode & 0o077) === 0) return;
  try {
    chmodSync(file, 0o600);
  } catch (error) {
    throw new StartupError(`${file} holds the API key but is readable by other users, and making it private failed (${error.code ?? error.message}); run chmod 600 ${file} and start again`);
  }
}

function generateKey() {
  const key = `lk_${randomBytes(32).toString("base64url")}`;
  // A new file is created with 0600 in the same open() call (mode applies at creation), never briefly readable.
  appendFileSync(ENV_FILE, `LEADS_API_KEY=${key}\n`, { mode: 0o600 });
  process.env.LEADS_API_KEY = key;
  return "generated";
}

