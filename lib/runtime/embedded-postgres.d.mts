export interface EmbeddedPostgresServer {
  /** URL of the database asked for. */
  url: string;
  /** URL of any database of the same cluster. */
  urlOf(database: string): string;
  /** The postmaster's process id. */
  pid: number;
  /** Settles when the server exits for any reason, with its exit code or signal. */
  exited: Promise<number | string>;
  stop(): Promise<void>;
}

export class StartupError extends Error {}

export function startEmbeddedPostgres(options: {
  dir: string;
  port: number;
  database: string;
  persistent?: boolean;
}): Promise<EmbeddedPostgresServer>;

export function runningPostmaster(dir: string): { pid: number; port: number } | null;

export function stopPostmaster(pid: number, timeoutMs?: number): Promise<void>;

export function embeddedDataDir(clone?: string): string;

export function portFree(port: number, host?: string): Promise<boolean>;

export function embeddedUrl(port: number, database: string): string;

export function shownPath(dir: string): string;
