import { ConnectionBudget } from "@/lib/db/connection-budget";
import { READ_WAIT_MS, readConnections } from "@/lib/db/read-budget";

/**
 * Lead creation holds the pool's connections the reads leave it, with a short line in front of them whose wait is
 * bounded by the measured cost of a creation (docs/decisions.md, "Creation sheds load"). What cannot be admitted is
 * refused before its body is read: 429 CREATION_BUSY with Retry-After, nothing stored.
 */
export class CreationBusy extends Error {
  constructor() {
    super("every connection lead creation may use is busy");
    this.name = "CreationBusy";
  }
}

/** By name, not instanceof: the budget that throws may be another route's copy of this module (see BUDGET). */
export function isCreationBusy(error: unknown): boolean {
  return error instanceof Error && error.name === "CreationBusy";
}

/** Creations that may wait in line, per connection lead creation may use. */
const LINE_PER_CONNECTION = 4;
/** Weight of the latest creation in the running mean of what one costs its connection. */
const COST_WEIGHT = 1 / 16;
/**
 * The longest `Retry-After` of a refused creation: 2 s under the preload's keep-alive (KEEP_ALIVE_TIMEOUT_MS), so that
 * a caller coming back when told finds its connection open (tests/create-lead/creation-busy.http.test.ts).
 */
export const LONGEST_RETRY_AFTER_S = 8;

/** The connections of a pool of `poolSize` that the reads leave to lead creation (at least one). */
export function creationConnections(poolSize: number, env: Record<string, string | undefined> = process.env): number {
  return Math.max(1, poolSize - readConnections(poolSize, env));
}

export class CreationBudget extends ConnectionBudget {
  /** The running mean of how long a creation holds its connection, event-loop delays included; none until one ran. */
  private costMs: number | undefined;

  protected lineLength(): number {
    return this.connections * LINE_PER_CONNECTION;
  }

  /**
   * Twice what the full line takes to drain at the measured cost, so a creation admitted finishes within a few times
   * its own cost; never longer than a read waits, which is also the bound before any creation was measured.
   */
  protected get waitMs(): number {
    if (this.costMs === undefined) return READ_WAIT_MS;
    return Math.min(READ_WAIT_MS, Math.ceil(2 * LINE_PER_CONNECTION * this.costMs));
  }

  protected busy(): Error {
    return new CreationBusy();
  }

  /**
   * Seconds a refused creation is told to wait: long enough for the `told` callers already told to wait to be
   * admitted first at the measured cost, at least `least` and at most LONGEST_RETRY_AFTER_S.
   */
  retryAfterSeconds(told: number, least: number): number {
    if (this.costMs === undefined) return least;
    const perSecond = (this.connections * 1000) / this.costMs;
    return Math.min(LONGEST_RETRY_AFTER_S, Math.max(least, Math.ceil(told / perSecond)));
  }

  protected readonly held = (ms: number) => {
    this.costMs = this.costMs === undefined ? ms : this.costMs + (ms - this.costMs) * COST_WEIGHT;
  };
}

// Kept on the client under a registered symbol, as the read budget is: one per process whatever Next bundles.
const BUDGET = Symbol.for("lead-intake-service.creation-budget");

/** Gives a client its creation budget (lib/db/connect.ts, for every client it makes). */
export function keepCreationBudget(db: object, budget: CreationBudget): void {
  Object.defineProperty(db, BUDGET, { value: budget });
}

function creationBudgetOf(db: object): CreationBudget {
  const budget = (db as { [BUDGET]?: CreationBudget })[BUDGET];
  if (!budget) throw new Error("lead creation needs a client from createDatabaseClient");
  return budget;
}

/**
 * Whether a creation offered now would be refused at once: every connection busy and the line full, counting as taken
 * the places of `coming` creations on their way to the budget.
 */
export function creationFull(db: object, coming = 0): boolean {
  const budget = creationBudgetOf(db);
  const { running, waiting } = budget.state;
  return running + waiting + coming >= budget.capacity;
}

/** The `Retry-After` of a creation refused now, with `told` callers waiting for theirs (CreationBudget). */
export function creationRetryAfter(db: object, told: number, least: number): number {
  return creationBudgetOf(db).retryAfterSeconds(told, least);
}

/** Throws CreationBusy when a creation offered now could not be admitted: called before the request's body is read. */
export function admitCreation(db: object): void {
  if (creationFull(db)) throw new CreationBusy();
}

/** Runs a creation's database work within the creation budget of the client `db`. */
export function creating<T>(db: object, create: () => Promise<T>): Promise<T> {
  return creationBudgetOf(db).run(create);
}
