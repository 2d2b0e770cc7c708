import { SingleBar } from "cli-progress";

/**
 * What the importer shows while it runs: a progress bar on stderr when stderr is a
 * terminal, otherwise a plain line every few seconds (logs and CI keep a readable
 * trail); with --json, one JSON event per line on stdout as well.
 */

export interface Counts {
  total: number;
  created: number;
  rejected: number;
  /** Rows at `intent` or `uncertain`, including those that cannot be reconciled. */
  uncertain: number;
}

const LINE_EVERY_MS = 5_000;

export class Progress {
  private readonly started = Date.now();
  private sentThisRun = 0;
  private bar: SingleBar | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(
    private readonly counts: () => Counts,
    private readonly json: boolean,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WriteStream = process.stderr,
  ) {}

  start(): void {
    this.running = true;
    const c = this.counts();
    if (this.stderr.isTTY) {
      this.bar = new SingleBar({
        stream: this.stderr,
        format:
          "{bar} {value}/{total} rows | {rate} rows/s | created {created} rejected {rejected} uncertain {uncertain}",
        hideCursor: true,
      });
      this.bar.start(c.total, c.created + c.rejected, this.payload());
    } else {
      this.timer = setInterval(() => this.line(), LINE_EVERY_MS);
      this.timer.unref();
    }
  }

  /** A row's POST got an answer (or none). */
  sent(): void {
    this.sentThisRun++;
    const c = this.counts();
    this.bar?.update(c.created + c.rejected, this.payload());
  }

  /** One JSON event on stdout with --json. */
  event(event: Record<string, unknown>): void {
    if (this.json) this.stdout.write(`${JSON.stringify(event)}\n`);
  }

  /** A message for the operator, on stderr. */
  say(message: string): void {
    if (this.bar) this.bar.stop();
    this.stderr.write(`${message}\n`);
    if (this.bar) {
      const c = this.counts();
      this.bar.start(c.total, c.created + c.rejected, this.payload());
    }
  }

  /** Ends the bar or the periodic lines with a last update; again, or before start(), it does nothing. */
  stop(): void {
    if (!this.running) return;
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    if (this.bar) {
      const c = this.counts();
      this.bar.update(c.created + c.rejected, this.payload());
      this.bar.stop();
    } else this.line();
    this.bar = null;
    this.timer = null;
  }

  private rate(): string {
    return (this.sentThisRun / Math.max(0.001, (Date.now() - this.started) / 1000)).toFixed(1);
  }

  private payload() {
    const { created, rejected, uncertain } = this.counts();
    return { rate: this.rate(), created, rejected, uncertain };
  }

  private line(): void {
    const c = this.counts();
    this.stderr.write(
      `import: ${c.created + c.rejected}/${c.total} rows, ${this.rate()} rows/s, created ${c.created}, rejected ${c.rejected}, uncertain ${c.uncertain}\n`,
    );
  }
}
