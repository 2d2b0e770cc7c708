/** The importer's exit codes (sysexits.h), docs/operating.md, "Bulk importer". */
export const EXIT = {
  /** Every row created. */
  OK: 0,
  USAGE: 64,
  /** Some rows rejected: data errors, listed in FILE.rejected.csv. */
  DATA: 65,
  /** Server unreachable, or a 503 / missing operation: it needs the administrator. */
  UNAVAILABLE: 69,
  /**
   * Uncertain or unreconciled rows remain, the run was stopped, or another run holds the ledger: run the same command
   * again.
   */
  TEMPFAIL: 75,
  /** The disk failed under the ledger or a results file. */
  IOERR: 74,
  /** A name the importer writes (ledger, lock, results) holds something other than a regular file. */
  CANTCREAT: 73,
  /** The key was refused (401). */
  NOPERM: 77,
} as const;
