import { EXIT } from "@/lib/importer/exit-codes";
import type { Input } from "@/lib/importer/input";
import type { Ledger } from "@/lib/importer/ledger";
import { messages, resultPaths } from "@/lib/importer/results";
import type { RunState, StopCause } from "@/lib/importer/run-state";

/** Rows listed by number in a sentence; the rest are counted. */
export const LISTED_ROWS = 20;

/** What a run ends with: its exit code and counts. */
export interface ImportResult {
  exitCode: number;
  total: number;
  created: number;
  rejected: number;
  uncertain: number;
  unreconciled: number[];
}

/** A run's exit code: why it stopped, else whether rows remain to send, else whether any was rejected. */
export function exitCodeOf(state: RunState, input: Input, ledger: Ledger, rejected: number): number {
  const remaining = input.rows.some(
    ({ row }) => ledger.state(row).state !== "created" && ledger.state(row).state !== "rejected",
  );
  if (state.stop === "disk") return EXIT.IOERR;
  if (state.stop === "key") return EXIT.NOPERM;
  if (state.stop === "unavailable") return EXIT.UNAVAILABLE;
  if (remaining) return EXIT.TEMPFAIL;
  return rejected ? EXIT.DATA : EXIT.OK;
}

/** The run's last lines: its counts, the rejected rows, the rows to check by hand, and what to do next. */
export function summaryLines(
  result: ImportResult,
  { file, ledgerPath, baseUrl }: { file: string; ledgerPath: string; baseUrl: string },
  { input, ledger, state }: { input: Input; ledger: Ledger; state: RunState },
): string[] {
  const paths = resultPaths(ledgerPath);
  const r = result;
  const lines = [
    `${file}: ${r.created} of ${r.total} rows created (${paths.created}), ${r.rejected} rejected (${paths.rejected}), ${r.uncertain} uncertain.`,
  ];
  const rejectedRows = input.rows.filter(({ row }) => ledger.state(row).state === "rejected");
  for (const { row } of rejectedRows.slice(0, LISTED_ROWS)) {
    const rowState = ledger.state(row);
    if (rowState.state === "rejected")
      lines.push(`  row ${row}: ${rowState.code ?? rowState.status} ${messages(rowState)}`);
  }
  if (rejectedRows.length > LISTED_ROWS)
    lines.push(`  … ${rejectedRows.length - LISTED_ROWS} more in ${paths.rejected}`);
  if (r.unreconciled.length) {
    lines.push(
      `Rows ${list(r.unreconciled)} may or may not have created a lead and cannot be checked through the API (person referrers). ` +
        "Check them in the host system; they are not sent again unless --resend-unreconciled is given.",
    );
  }
  const hint = nextStep(r, baseUrl, state);
  return hint ? [...lines, hint] : lines;
}

/** What to do next, for an exit code that asks for something. */
function nextStep(r: ImportResult, baseUrl: string, state: RunState): string {
  const unsent = r.total - r.created - r.rejected - r.uncertain;
  const tempfail = [
    r.uncertain ? "Some rows have no known outcome yet: run the same command again to reconcile and finish them." : "",
    unsent ? `The run was stopped before every row was sent (${unsent} not sent): run the same command again.` : "",
  ];
  const hint: Record<number, string> = {
    [EXIT.NOPERM]: "The key was refused (401): check LEADS_API_KEY, then run the same command again.",
    [EXIT.UNAVAILABLE]: unavailable(baseUrl, state.cause),
    [EXIT.TEMPFAIL]: tempfail.filter(Boolean).join("\n"),
    [EXIT.IOERR]: state.diskFailure?.message ?? "",
  };
  return hint[r.exitCode] ?? "";
}

/** Why the server could not take the rows, as one sentence naming it and the cause. */
function unavailable(baseUrl: string, cause: StopCause | null): string {
  const again = "run the same command again once it answers.";
  if (!cause || cause.status === null) {
    return `The server at ${baseUrl} is unreachable (${cause?.error ?? "no answer"}): start it, or give --base-url, then ${again}`;
  }
  const answer = [cause.status, cause.code].filter((part) => part !== null).join(" ");
  return `The server at ${baseUrl} answered ${answer} (${cause.error}): it needs its administrator; ${again}`;
}

function list(rows: number[]): string {
  return rows.length > LISTED_ROWS
    ? `${rows.slice(0, LISTED_ROWS).join(", ")} and ${rows.length - LISTED_ROWS} more`
    : rows.join(", ");
}
