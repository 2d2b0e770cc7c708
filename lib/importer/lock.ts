import { readFileSync } from "node:fs";
import { link, rename, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { z } from "zod/v4";
import { checkRegularOrAbsent, diskError, ImportFileError, openRegular, writeTemporary } from "@/lib/importer/files";

/**
 * The ledger's lock: a file naming its owner, link(2)ed into place whole, so of two runs exactly one creates it. Only
 * a lock of this host whose pid is not running is stale and replaced (docs/decisions.md, "The importer's files").
 */

const owner = z.strictObject({ pid: z.int().positive(), host: z.string().min(1), startedAt: z.iso.datetime() });
type Owner = z.infer<typeof owner>;

export class Lock {
  private constructor(
    private readonly path: string,
    private readonly record: string,
  ) {}

  /** Takes the lock of `ledger` (`ledger.lock`), or throws ImportFileError saying who holds it and what to do. */
  static async acquire(ledger: string): Promise<Lock> {
    const path = `${ledger}.lock`;
    const record = JSON.stringify({
      pid: process.pid,
      host: hostname(),
      startedAt: new Date().toISOString(),
    } satisfies Owner);
    // Both names are refused at once when something other than a regular file stands there, before any wait.
    for (const name of [path, takeoverPath(path)]) await checkRegularOrAbsent(name);
    await take(path, record, ledger);
    return new Lock(path, record);
  }

  /** Removes the lock if it is still this run's. */
  async release(): Promise<void> {
    if ((await readRecord(this.path).catch(() => null)) === this.record) await unlink(this.path).catch(() => {});
  }
}

/**
 * Creates `path` holding `record`, or replaces a stale lock there under a second lock (`path.takeover`), only if it
 * still holds the stale record read before: of several runs that found it, one replaces it.
 */
async function take(path: string, record: string, ledger: string): Promise<void> {
  const temporary = await writeTemporary(path, record);
  try {
    // Each pass either takes the lock or finds it held; a pass only repeats when the lock vanished or changed under it.
    for (let pass = 0; pass < 10; pass++) {
      try {
        await link(temporary, path);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw diskError("create the lock", path, error);
      }
      const found = await readRecord(path);
      if (found === null) continue;
      const holder = owner.safeParse(safeJson(found)).data;
      if (!holder) throw refusal(path, "cannot be read (it was not written by this importer, or is damaged)");
      if (holder.host !== hostname())
        throw refusal(
          path,
          `belongs to pid ${holder.pid} on host ${holder.host} (started ${holder.startedAt}), which this host cannot check`,
        );
      if (isAlive(holder.pid)) throw busy(ledger, holder);

      // Busy here means another run is replacing this stale lock right now: that run will hold it.
      const guard = takeoverPath(path);
      await take(guard, record, ledger);
      try {
        if ((await readRecord(path)) === found) {
          await rename(temporary, path);
          return;
        }
      } finally {
        await unlink(guard).catch(() => {});
      }
    }
    throw new ImportFileError(
      `The lock ${path} keeps changing: make sure only one import uses this ledger, then run again.`,
      "busy",
    );
  } finally {
    await unlink(temporary).catch(() => {});
  }
}

/** The lock's text, or null if there is none. */
async function readRecord(path: string): Promise<string | null> {
  const handle = await openRegular(path);
  if (!handle) return null;
  try {
    return await handle.readFile("utf8");
  } catch (error) {
    throw diskError("read", path, error);
  } finally {
    await handle.close();
  }
}

const takeoverPath = (lock: string) => `${lock}.takeover`;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const busy = (ledger: string, holder: Owner) =>
  new ImportFileError(
    `Another import (pid ${holder.pid} on ${holder.host}, started ${holder.startedAt}) is using the ledger ${ledger}: wait for it to finish, then run the same command again.`,
    "busy",
  );

const refusal = (path: string, why: string) =>
  new ImportFileError(
    `The ledger lock ${path} ${why}: if no import of this ledger is running on any host, delete ${path} and run again.`,
    "usage",
  );

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  // A zombie (exited, not yet reaped by its parent) still takes signals; Linux shows its state in /proc.
  const state = processState(pid);
  return state !== "Z" && state !== "X";
}

/** The state letter of /proc/PID/stat (after the command name, which may hold spaces and parentheses), or null. */
function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(")") + 2) || null;
  } catch {
    return null;
  }
}
