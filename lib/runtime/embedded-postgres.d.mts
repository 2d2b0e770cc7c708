export { embeddedDataDir, shownPath, StartupError } from "./postgres-user.mjs";

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

export function startEmbeddedPostgres(options: {
  dir: string;
  port: number;
  database: string;
  persistent?: boolean;
}): Promise<EmbeddedPostgresServer>;

export function runningPostmaster(dir: string): { pid: number; port: number } | null;

export function stopPostmaster(pid: number, timeoutMs?: number): Promise<void>;

export function portFree(port: number, host?: string): Promise<boolean>;

/** URL of `database` in the embedded cluster in `dir` on `port`, with the password filed beside `dir`. */
export function embeddedUrl(dir: string, port: number, database: string): string;

/** Where the password of the embedded cluster in `dir` is kept (mode 0600). */
export function passwordFile(dir: string): string;

/** Removes the embedded cluster in `dir`: its data folder and its password file. */
export function removeEmbeddedCluster(dir: string): void;
