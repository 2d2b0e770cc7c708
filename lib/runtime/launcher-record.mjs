// Which launcher runs this clone's embedded database (.data/launcher.json), so a second `npm start` is refused and
// the PostgreSQL a killed launcher left running is stopped by the next start.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runningPostmaster, shownPath, StartupError, stopPostmaster } from "./embedded-postgres.mjs";

const RECORD = path.resolve(".data", "launcher.json");

/**
 * Refuses to start while another launcher runs this clone's database; stops what a killed one left running.
 * @param {string} dir
 */
export async function checkEarlierLauncher(dir) {
  const earlier = read();
  if (!earlier || earlier.pid === process.pid) return;
  if (isLauncher(earlier.pid)) {
    throw new StartupError(
      `The embedded database in ${shownPath(dir)} is already in use by the server on port ${earlier.port} (launcher pid ${earlier.pid}); stop that server first, or set DATABASE_URL to run another one`,
    );
  }
  const running = runningPostmaster(dir);
  if (running && running.pid === earlier.postgresPid) {
    console.log(
      `Stopping the embedded PostgreSQL (pid ${running.pid}) left running by a launcher that was killed (pid ${earlier.pid})`,
    );
    await stopPostmaster(running.pid);
  }
  rmSync(RECORD, { force: true });
}

/** @param {{ port: number, postgresPid: number }} launcher */
export function recordLauncher({ port, postgresPid }) {
  mkdirSync(path.dirname(RECORD), { recursive: true });
  writeFileSync(RECORD, JSON.stringify({ pid: process.pid, port, postgresPid }));
}

export function forgetLauncher() {
  if (read()?.pid === process.pid) rmSync(RECORD, { force: true });
}

/** @returns {{ pid: number, port: number, postgresPid: number } | null} */
function read() {
  try {
    return JSON.parse(readFileSync(RECORD, "utf8"));
  } catch {
    return null;
  }
}

/**
 * A live process running this launcher (its pid may since have gone to another program).
 * @param {number} pid
 */
function isLauncher(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== "EPERM") return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("start.mjs");
  } catch {
    return true; // no /proc: a live pid is taken for the launcher
  }
}
