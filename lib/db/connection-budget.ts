/**
 * A share of the pool's connections that one kind of work may hold at once, with a line in front of it bounded in
 * length and in wait: what finds the line full, or waits past its bound, is refused at once by `busy()`.
 */
export abstract class ConnectionBudget {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly connections: number) {}

  /** How many may wait in line. */
  protected abstract lineLength(): number;
  /** How long one waits in line before it is refused. */
  protected abstract get waitMs(): number;
  /** The refusal of work that cannot be taken. */
  protected abstract busy(): Error;
  /** How long a piece of work held its place, for a budget that sizes its line by it. */
  protected readonly held?: (ms: number) => void;

  /** Work running and work waiting in line, for the metrics. */
  get state(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** How much work may run and wait in line at once; run() refuses more at once. */
  get capacity(): number {
    return this.connections + this.lineLength();
  }

  /** Runs `work` once one of the connections is free; throws `busy()` when none frees in time. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.connections) await this.turn();
    else this.running++;
    const startedAt = performance.now();
    try {
      return await work();
    } finally {
      this.held?.(performance.now() - startedAt);
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Waits for finishing work to hand over its place (`running` stays counted for the one woken). */
  private turn(): Promise<void> {
    if (this.waiting.length >= this.lineLength()) return Promise.reject(this.busy());
    return new Promise((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(wake), 1);
        reject(this.busy());
      }, this.waitMs);
      this.waiting.push(wake);
    });
  }
}
