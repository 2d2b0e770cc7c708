import { ImportFileError } from "@/lib/importer/files";
import type { Input } from "@/lib/importer/input";
import type { Ledger } from "@/lib/importer/ledger";
import type { Progress } from "@/lib/importer/progress";

/** The answer, or the failure to get one, that stopped a run: its last sentence names it. */
export interface StopCause {
  status: number | null;
  code: string | null;
  error: string;
}

/**
 * What a run's phases and its concurrent senders share: why the run stopped, the POSTs in flight, and the ledger
 * writes still under way (a failed one stops the run).
 */
export class RunState {
  stop: "key" | "unavailable" | "disk" | null = null;
  cause: StopCause | null = null;
  diskFailure: ImportFileError | null = null;
  inFlight = 0;
  private readonly writes: Promise<void>[] = [];

  constructor(readonly signal: AbortSignal | undefined) {}

  /** Nothing more is sent: the run stopped, or the operator stopped it (SIGINT, SIGTERM). */
  get halted(): boolean {
    return this.stop !== null || this.signal?.aborted === true;
  }

  /** The first answer that says the server or the key cannot take rows stops the run. */
  stopFor(why: "key" | "unavailable", cause: StopCause): void {
    this.stop ??= why;
    this.cause ??= cause;
  }

  /** A ledger or results write failed: nothing more is sent, and the run ends with that sentence. */
  readonly failed = (error: unknown): void => {
    if (!(error instanceof ImportFileError)) throw error;
    this.stop = "disk";
    this.diskFailure ??= error;
  };

  /** A ledger write that the run need not wait for now; a failure stops the run. */
  record(pending: Promise<void>): void {
    this.writes.push(pending.catch(this.failed));
  }

  /** The writes recorded so far, rejecting on an error other than the disk's. */
  written(): Promise<unknown> {
    return Promise.all(this.writes);
  }

  settled(): Promise<unknown> {
    return Promise.allSettled(this.writes);
  }
}

/** A run once its ledger is open: its rows, their ledger, what it shows, and its shared state. */
export interface Run {
  input: Input;
  ledger: Ledger;
  progress: Progress;
  state: RunState;
}
