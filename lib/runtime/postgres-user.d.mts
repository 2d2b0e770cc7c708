/** A failure the operator can act on; its message is one sentence saying what happened and what to do. */
export class StartupError extends Error {}

/** The ids to run PostgreSQL with: {} when not root, else the "postgres" user's. */
export function postgresUser(): { uid?: number; gid?: number };

/** initdb and postgres as the user in `ids` can run them. */
export function reachableBinaries(ids: { uid?: number; gid?: number }): { initdb: string; postgres: string };

export function requireReachable(ids: { uid?: number; gid?: number }, dir: string): void;

export function embeddedDataDir(clone?: string): string;

export function shownPath(dir: string): string;
