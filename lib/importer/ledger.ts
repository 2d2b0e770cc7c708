import { hostname } from "node:os";
import { type FileHandle, open, readFile, truncate, unlink } from "node:fs/promises";
import path from "node:path";
import type { Issue } from "@/lib/client";

/**
 * The import ledger: an append-only JSON Lines file beside the input. Its first line
 * records the input's SHA-256; then each row gets an `intent` before its POST is sent
 * (on disk, fsynced, before the request leaves) and one outcome after it. Replaying
 * the file gives every row's state, which is how a stopped or crashed run resumes.
 *
 * Writes are group-committed: entries queued while an fsync runs go out together
 * with the next one, so concurrent workers share fsyncs instead of queueing for one each.
 */

export type LedgerEntry =
  | { type: "input"; sha256: string; rows: number; at: string }
  | { type: "intent"; row: number; at: string }
  | { type: "created"; row: number; referralId: number; leadCustomerId: string | null; requestId: string | null; reconciled?: true }
  | { type: "rejected"; row: number; status: number | null; code: string | null; error: string; issues: Issue[]; requestId: string | null }
  | { type: "uncertain"; row: number; reason: string; status: number | null; code: string | null; error: string; requestId: string | null }
  /** The server answered that it did nothing (refused, unavailable, not reachable): send again later, no reconciliation needed. */
  | { type: "unsent"; row: number; status: number | null; code: string | null; error: string }
  /** Reconciliation found no lead of this row: safe to send. */
  | { type: "absent"; row: number; at: string };

export type RowState =
  | { state: "pending"; firstAttemptAt: string | null }
  | { state: "intent" | "uncertain"; firstAttemptAt: string }
  | { state: "created"; referralId: number; leadCustomerId: string | null; requestId: string | null; reconciled: boolean }
  | { state: "rejected"; status: number | null; code: string | null; error: string; issues: Issue[] };

export class LedgerError extends Error {
  constructor(
    message: string,
    /** Another run holds the lock. */
    readonly busy = false,
  ) {
    super(message);
  }
}

const NEW: RowState = { state: "pending", firstAttemptAt: null };

function next(current: RowState, entry: LedgerEntry): RowState {
  const firstAttemptAt = "firstAttemptAt" in current ? current.firstAttemptAt : null;
  switch (entry.type) {
    case "intent":
      return { state: "intent", firstAttemptAt: firstAttemptAt ?? entry.at };
    case "uncertain":
      return { state: "uncertain", firstAttemptAt: firstAttemptAt ?? new Date(0).toISOString() };
    case "unsent":
    case "absent":
      return { state: "pending", firstAttemptAt };
    case "created":
      return { state: "created", referralId: entry.referralId, leadCustomerId: entry.leadCustomerId, requestId: entry.requestId, reconciled: !!entry.reconciled };
    case "rejected":
      return { state: "rejected", status: entry.status, code: entry.code, error: entry.error, issues: entry.issues };
    default:
      return current;
  }
}

interface Pending {
  line: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class Ledger {
  private readonly states = new Map<number, RowState>();
  /** Rows per state other than pending, kept with `states` so progress updates do not walk every row. */
  private readonly tally: Record<Exclude<RowState["state"], "pending">, number> = { intent: 0, uncertain: 0, created: 0, rejected: 0 };
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private failed: unknown = null;

  private constructor(
    private readonly file: FileHandle,
    private readonly lockPath: string,
  ) {}

  /**
   * Opens (or starts) the ledger of an input with the given hash, under a lock file.
   * A ledger of another input is refused; a torn last line (a crash mid-write) is cut
   * off, which is safe: an intent that never reached the disk was never followed by a
   * POST, and a lost outcome leaves the row at `intent`, which is reconciled.
   */
  static async open(ledgerPath: string, sha256: string, rows: number): Promise<Ledger> {
    const lockPath = `${ledgerPath}.lock`;
    await acquireLock(lockPath);
    try {
      const existing = await readFile(ledgerPath, "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return null;
        throw error;
      });
      const complete = existing === null ? "" : existing.slice(0, existing.lastIndexOf("\n") + 1);
      if (existing !== null) await truncate(ledgerPath, Buffer.byteLength(complete));
      const file = await open(ledgerPath, existing === null ? "ax" : "a");
      const ledger = new Ledger(file, lockPath);
      if (existing === null) {
        await ledger.append({ type: "input", sha256, rows, at: new Date().toISOString() });
        await syncDirectory(ledgerPath);
        return ledger;
      }
      const entries = complete.split("\n").filter(Boolean).map((line) => JSON.parse(line) as LedgerEntry);
      const header = entries[0];
      if (header?.type !== "input") {
        await ledger.close();
        throw new LedgerError(`${ledgerPath} is not an import ledger`);
      }
      if (header.sha256 !== sha256) {
        await ledger.close();
        throw new LedgerError(
          `The input changed since ${ledgerPath} was started (its SHA-256 was ${header.sha256.slice(0, 12)}…, now ${sha256.slice(0, 12)}…). ` +
            "Restore the original input to resume, or import the new file with another --ledger.",
        );
      }
      for (const entry of entries.slice(1)) if ("row" in entry) ledger.apply(entry);
      return ledger;
    } catch (error) {
      await unlink(lockPath).catch(() => {});
      throw error;
    }
  }

  state(row: number): RowState {
    return this.states.get(row) ?? NEW;
  }

  /** How many rows are in each state (rows never attempted, or unsent, are pending and not counted). */
  counts(): Readonly<Ledger["tally"]> {
    return this.tally;
  }

  private apply(entry: LedgerEntry & { row: number }): void {
    const before = this.state(entry.row);
    const after = next(before, entry);
    if (before.state !== "pending") this.tally[before.state]--;
    if (after.state !== "pending") this.tally[after.state]++;
    this.states.set(entry.row, after);
  }

  /** Records an entry; resolves once it is on disk (fsynced). */
  append(entry: LedgerEntry): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if ("row" in entry) this.apply(entry);
    return new Promise((resolve, reject) => {
      this.queue.push({ line: `${JSON.stringify(entry)}\n`, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      try {
        await this.file.appendFile(batch.map((p) => p.line).join(""));
        await this.file.sync();
        for (const p of batch) p.resolve();
      } catch (error) {
        this.failed = error;
        for (const p of [...batch, ...this.queue]) p.reject(error);
        this.queue = [];
      }
    }
    this.flushing = null;
  }

  /** Waits for queued entries, closes the file and releases the lock. */
  async close(): Promise<void> {
    await this.flushing;
    await this.file.close();
    await unlink(this.lockPath).catch(() => {});
  }
}

/**
 * The lock is a file holding its owner's host and pid, created exclusively. A lock
 * whose owner on this host is gone (a crashed or killed run) is taken over, so a
 * crashed run resumes by running the same command.
 */
async function acquireLock(lockPath: string): Promise<void> {
  const me = JSON.stringify({ host: hostname(), pid: process.pid });
  for (let tries = 0; tries < 2; tries++) {
    try {
      const handle = await open(lockPath, "wx");
      await handle.writeFile(me);
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const owner = await readFile(lockPath, "utf8").then((text) => JSON.parse(text) as { host: string; pid: number }).catch(() => null);
    if (owner && (owner.host !== hostname() || isAlive(owner.pid))) {
      throw new LedgerError(`Another import (pid ${owner.pid} on ${owner.host}) is using this ledger (${lockPath})`, true);
    }
    await unlink(lockPath).catch(() => {});
  }
  throw new LedgerError(`Could not take the ledger lock ${lockPath}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function syncDirectory(file: string): Promise<void> {
  const dir = await open(path.dirname(file), "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
