import { ConnectionBudget } from "@/lib/db/connection-budget";
import { numericSetting } from "@/lib/settings.mjs";

/**
 * How many pool connections the read operations may hold at once, so that lead creation always finds the rest
 * (docs/decisions.md, "Reads hold part of the pool"). A read over budget waits in line, and a line too long is
 * refused at once: 503 READS_BUSY with Retry-After.
 */
export class ReadsBusy extends Error {
  constructor() {
    super("every read connection is busy");
    this.name = "ReadsBusy";
  }
}

/** By name, not instanceof: the budget that throws may be another route's copy of this module (see BUDGET). */
export function isReadsBusy(error: unknown): boolean {
  return error instanceof Error && error.name === "ReadsBusy";
}

/** How long a read waits for its turn before it is refused. */
export const READ_WAIT_MS = 2_000;
/** Reads that may wait in line, per reading connection. */
const READ_QUEUE = 8;

/**
 * The read connections of a pool of `poolSize`: DATABASE_READ_CONNECTIONS when set, else half the pool; always at
 * least one and, with two connections or more, at least one fewer than the pool, so lead creation keeps one.
 */
export function readConnections(poolSize: number, env: Record<string, string | undefined> = process.env): number {
  const wanted = numericSetting("DATABASE_READ_CONNECTIONS", env) ?? Math.floor(poolSize / 2);
  return Math.max(1, Math.min(wanted, poolSize - 1));
}

export class ReadBudget extends ConnectionBudget {
  protected get waitMs(): number {
    return READ_WAIT_MS;
  }

  protected lineLength(): number {
    return this.connections * READ_QUEUE;
  }

  protected busy(): Error {
    return new ReadsBusy();
  }
}

// Kept on the client under a registered symbol (as lib/db/prepared.ts keeps its pool): Next can give each route its
// own copy of this module, while the client, and so the budget, is one per process.
const BUDGET = Symbol.for("lead-intake-service.read-budget");

/** Gives a client its read budget (lib/db/connect.ts, for every client it makes). */
export function keepReadBudget(db: object, budget: ReadBudget): void {
  Object.defineProperty(db, BUDGET, { value: budget });
}

/** The read budget of a client from createDatabaseClient. */
export function readBudgetOf(db: object): ReadBudget | undefined {
  return (db as { [BUDGET]?: ReadBudget })[BUDGET];
}

/** Runs a read operation's database work within the read budget of the client `db`. */
export function reading<T>(db: object, read: () => Promise<T>): Promise<T> {
  const budget = readBudgetOf(db);
  if (!budget) throw new Error("reading needs a client from createDatabaseClient");
  return budget.run(read);
}
