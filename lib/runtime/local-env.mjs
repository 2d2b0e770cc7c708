// The one reader of the clone's local configuration, used by the launcher (lib/runtime/start.mjs) and the bulk importer
// (scripts/import.ts), so both find the key and the port as the server does: .env.local of the current folder, where a
// variable already set in the environment wins.
import { chmodSync, existsSync, statSync } from "node:fs";
import { numericSetting } from "../settings.mjs";

export const ENV_FILE = ".env.local";

/** A sentence about .env.local that the caller reports as its own failure. */
export class LocalEnvError extends Error {}

/**
 * Loads .env.local, if there is one, into `process.env` without replacing what is set. The file holds the API key, so
 * one readable by group or others (an editor's or a copy's 0644) is made 0600 before it is read. Returns whether it
 * exists.
 */
export function loadLocalEnv() {
  if (!existsSync(ENV_FILE)) return false;
  if ((statSync(ENV_FILE).mode & 0o077) !== 0) {
    try {
      chmodSync(ENV_FILE, 0o600);
    } catch (error) {
      throw new LocalEnvError(
        `${ENV_FILE} holds the API key but is readable by other users, and making it private failed (${/** @type {NodeJS.ErrnoException} */ (error).code ?? /** @type {Error} */ (error).message}); run chmod 600 ${ENV_FILE} and start again`,
      );
    }
  }
  process.loadEnvFile(ENV_FILE);
  return true;
}

/**
 * The port the server listens on: PORT, else its default (lib/settings.mjs).
 * @param {import("../settings.mjs").Env} [env]
 */
export function localPort(env = process.env) {
  return numericSetting("PORT", env);
}

/**
 * The base URL of the server on this machine.
 * @param {import("../settings.mjs").Env} [env]
 */
export function localBaseUrl(env = process.env) {
  return `http://localhost:${localPort(env)}`;
}
