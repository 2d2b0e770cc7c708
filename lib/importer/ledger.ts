import { constants, type FileHandle, link, open, unlink } from "node:fs/promises";
import path from "node:path";
import type { Issue } from "@/lib/client/index";
import { diskError, ImportFileError, openRegular, writeTemporary } from "@/lib/importer/files";
import { Lock } from "@/lib/importer/lock";

/**
 * The import ledger: an append-only JSON Lines file beside the input, with an `intent` on disk before each row's POST
 * and an outcome after it, so a stopped run resumes by replaying it (docs/decisions.md, "The importer's files").
 * Entries queued in one event-loop turn, or while a write is on its way, share one O_DSYNC write.
 */

/** Appends return once the bytes and the new length are on disk, as write then fdatasync would, in one call. */
const APPEND = constants.O_RDWR | constants.O_APPEND | constants.O_DSYNC;

export type LedgerEntry =
  | { type: "input"; sha256: string; rows: number; at: string }
  | { type: "intent"; row: number; at: string }
  | {
      type: "created";
      row: number;
      referralId: number;
      leadCustomerId: string | null;
      requestId: string | null;
      reconciled?: true;
    }
  | {
      type: "rejected";
      row: number;
      status: number | null;
      code: string | null;
      error: string;
      issues: Issue[];
      requestId: string | null;
    }
  | {
      type: "uncertain";
      row: number;
      reason: string;
      status: number | null;
      code: string | null;
      error: string;
      requestId: string | null;
    }
  /**
   * Nothing was created: the server answered that it did nothing (refused, unavailable, not reachable), or the run
   * stopped before sending the row. Send again later, no reconciliation needed.
   */
  | { type: "unsent"; row: number; status: number | null; code: string | null; error: string }
  /** Reconciliation found no lead of this row: safe to send. */
  | { type: "absent"; row: number; at: string };

export type RowState =
  | { state: "pending"; firstAttemptAt: string | null }
  | { state: "intent" | "uncertain"; firstAttemptAt: string }
  | {
      state: "created";
      referralId: number;
      leadCustomerId: string | null;
      requestId: string | null;
      reconciled: boolean;
    }
  | { state: "rejected"; status: number | null; code: string | null; error: string; issues: Issue[] };

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
      return {
        state: "created",
        referralId: entry.referralId,
        leadCustomerId: entry.leadCustomerId,
        requestId: entry.requestId,
        reconciled: !!entry.reconciled,
      };
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
  private readonly tally: Record<Exclude<RowState["state"], "pending">, number> = {
    intent: 0,
    uncertain: 0,
    created: 0,
    rejected: 0,
  };
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private failed: unknown = null;

  private constructor(
    private readonly file: FileHandle,
    private readonly lock: Lock,
    private readonly path: string,
  ) {}

  /**
   * Opens (or starts) the ledger of an input with the given hash, under its lock. A file that is not this input's
   * ledger is refused unchanged; only then is a torn last line cut off, which loses no POST's outcome unnoticed.
   */
  static async open(ledgerPath: string, sha256: string, rows: number): Promise<Ledger> {
    const lock = await Lock.acquire(ledgerPath);
    try {
      const existing = await openRegular(ledgerPath, APPEND);
      if (!existing)
        return new Ledger(
          await create(ledgerPath, { type: "input", sha256, rows, at: new Date().toISOString() }),
          lock,
          ledgerPath,
        );
      const ledger = new Ledger(existing, lock, ledgerPath);
      try {
        const text = await existing.readFile("utf8").catch((error) => {
          throw diskError("read", ledgerPath, error);
        });
        const complete = text.slice(0, text.lastIndexOf("\n") + 1);
        const entries = parse(complete);
        if (!entries)
          throw new ImportFileError(
            `${ledgerPath} is not an import ledger: give another --ledger, or none for the default.`,
            "usage",
          );
        const header = entries[0] as Extract<LedgerEntry, { type: "input" }>;
        if (header.sha256 !== sha256) {
          throw new ImportFileError(
            `The input changed since ${ledgerPath} was started (its SHA-256 was ${header.sha256.slice(0, 12)}…, now ${sha256.slice(0, 12)}…). ` +
              "Restore the original input to resume, or import the new file with another --ledger.",
            "usage",
          );
        }
        if (complete.length < text.length) {
          await existing.truncate(Buffer.byteLength(complete)).catch((error) => {
            throw diskError("repair", ledgerPath, error);
          });
        }
        for (const entry of entries.slice(1)) if ("row" in entry) ledger.apply(entry);
        return ledger;
      } catch (error) {
        await existing.close();
        throw error;
      }
    } catch (error) {
      await lock.release();
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

  /** Records an entry; resolves once it is on disk. */
  append(entry: LedgerEntry): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if ("row" in entry) this.apply(entry);
    return new Promise((resolve, reject) => {
      this.queue.push({ line: `${JSON.stringify(entry)}\n`, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      try {
        const bytes = Buffer.from(batch.map((p) => p.line).join(""));
        for (let written = 0; written < bytes.length;) written += (await this.file.write(bytes, written)).bytesWritten;
        for (const p of batch) p.resolve();
      } catch (error) {
        this.failed = diskError("write the ledger", this.path, error);
        for (const p of [...batch, ...this.queue]) p.reject(this.failed);
        this.queue = [];
      }
    }
    this.flushing = null;
  }

  /** Waits for queued entries, closes the file and releases the lock. */
  async close(): Promise<void> {
    await this.flushing;
    await this.file.close().catch(() => {});
    await this.lock.release();
  }
}

/**
 * Entries of complete lines, or null if the text is not a ledger (no input header first, or a line that is no entry).
 */
function parse(complete: string): LedgerEntry[] | null {
  const entries: LedgerEntry[] = [];
  for (const line of complete.split("\n").slice(0, -1)) {
    try {
      const entry = JSON.parse(line) as LedgerEntry | null;
      if (typeof entry?.type !== "string") return null;
      entries.push(entry);
    } catch {
      return null;
    }
  }
  const header = entries[0];
  return header?.type === "input" && typeof header.sha256 === "string" ? entries : null;
}

/**
 * A new ledger appears whole with its header line (written beside, then linked), so every ledger file starts with one.
 */
async function create(ledgerPath: string, header: LedgerEntry): Promise<FileHandle> {
  const temporary = await writeTemporary(ledgerPath, `${JSON.stringify(header)}\n`);
  try {
    await link(temporary, ledgerPath);
    await syncDirectory(ledgerPath);
  } catch (error) {
    throw diskError("create the ledger", ledgerPath, error);
  } finally {
    await unlink(temporary).catch(() => {});
  }
  return (await openRegular(ledgerPath, APPEND))!;
}

async function syncDirectory(file: string): Promise<void> {
  const dir = await open(path.dirname(file), "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
