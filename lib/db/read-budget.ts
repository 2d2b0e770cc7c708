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

export class ReadBudget {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly connections: number) {}

  /** Reads running and reads waiting in line, for the metrics. */
  get state(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Runs `read` once one of the read connections is free; throws ReadsBusy when none frees in time. */
  async run<T>(read: () => Promise<T>): Promise<T> {
    if (this.running >= this.connections) await this.turn();
    else this.running++;
    try {
      return await read();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Waits for a finishing read to hand over its place (`running` stays counted for the one woken). */
  private turn(): Promise<void> {
    if (this.waiting.length >= this.connections * READ_QUEUE) return Promise.reject(new ReadsBusy());
    return new Promise((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(wake), 1);
        reject(new ReadsBusy());
      }, READ_WAIT_MS);
      this.waiting.push(wake);
    });
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
