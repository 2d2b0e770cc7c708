import { LeadsClient } from "@/lib/client/index";
import { createLeadBody, validate } from "@/lib/leads/schemas";
import { EXIT } from "@/lib/importer/exit-codes";
import { type Input, InputError, readInput } from "@/lib/importer/input";
import { checkRegularOrAbsent, ImportFileError } from "@/lib/importer/files";
import { Ledger } from "@/lib/importer/ledger";
import { Progress } from "@/lib/importer/progress";
import { type Attempted, reconcile, ReconcileError } from "@/lib/importer/reconcile";
import { checkResults, resultPaths, writeResults } from "@/lib/importer/results";
import { type Run, RunState } from "@/lib/importer/run-state";
import { sendRows } from "@/lib/importer/send";
import { exitCodeOf, type ImportResult, LISTED_ROWS, summaryLines } from "@/lib/importer/summary";

export { EXIT } from "@/lib/importer/exit-codes";
export { MAX_SENDS_PER_ROW } from "@/lib/importer/send";
export type { ImportResult } from "@/lib/importer/summary";

/** Requests in flight by default (--concurrency). */
export const DEFAULT_CONCURRENCY = 4;

export interface ImportOptions {
  file: string;
  baseUrl: string;
  apiKey: string;
  concurrency: number;
  dryRun: boolean;
  json: boolean;
  ledgerPath: string;
  resendUnreconciled: boolean;
  /** Stops sending new rows when aborted (the CLI aborts it on SIGINT/SIGTERM). */
  signal?: AbortSignal;
}

/**
 * An import in phases: the input read and the files checked, rows no body can be formed from rejected, rows an
 * earlier run left open reconciled, the rest sent, answers lost meanwhile reconciled, then the results and summary.
 */
export async function runImport(options: ImportOptions): Promise<ImportResult> {
  let input: Input;
  try {
    input = await readInput(options.file);
  } catch (error) {
    if (error instanceof InputError) return usage(error.message);
    throw error;
  }
  if (options.dryRun) return dryRun(input, options);
  const ledger = await openLedger(options, input);
  if (!(ledger instanceof Ledger)) return ledger;

  const state = new RunState(options.signal);
  const counts = () => {
    const { created, rejected, intent, uncertain } = ledger.counts();
    // Rows at `intent` whose POST is still under way are not uncertain (yet).
    return { total: input.rows.length, created, rejected, uncertain: intent + uncertain - state.inFlight };
  };
  const run: Run = { input, ledger, progress: new Progress(counts, options.json), state };
  const unreconciled = await importRows(run, options);

  const c = counts();
  const result: ImportResult = { exitCode: exitCodeOf(state, input, ledger, c.rejected), ...c, unreconciled };
  run.progress.say(summaryLines(result, options, run).join("\n"));
  run.progress.event({ event: "summary", ...result, exitCode: result.exitCode });
  return result;
}

/** The run's ledger, once every file it writes is checked; a refusal's result otherwise, nothing sent. */
async function openLedger(options: ImportOptions, input: Input): Promise<Ledger | ImportResult> {
  let ledger: Ledger;
  try {
    for (const file of [options.ledgerPath, ...Object.values(resultPaths(options.ledgerPath))])
      await checkRegularOrAbsent(file);
    ledger = await Ledger.open(options.ledgerPath, input.sha256, input.rows.length);
  } catch (error) {
    if (error instanceof ImportFileError) return usage(error.message, FILE_ERROR_EXIT[error.kind]);
    throw error;
  }
  try {
    await checkResults(options.ledgerPath, input, (row) => ledger.state(row));
  } catch (error) {
    await ledger.close();
    if (error instanceof ImportFileError) return usage(error.message, FILE_ERROR_EXIT[error.kind]);
    throw error;
  }
  return ledger;
}

/**
 * Every phase that talks to the service, then the results written and the ledger closed whatever happened; returns
 * the rows whose outcome cannot be checked through the API.
 */
async function importRows(run: Run, options: ImportOptions): Promise<number[]> {
  const { input, ledger, progress, state } = run;
  const client = new LeadsClient({ baseUrl: options.baseUrl, apiKey: options.apiKey });
  const poster = new LeadsClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, retry: { maxAttempts: 1 } });
  let unreconciled: number[] = [];
  try {
    await rejectUnformable(run);
    // Resume: rows whose earlier attempt has no known outcome are reconciled before anything is sent.
    unreconciled = await reconcileOpen(run, client, false);

    progress.start();
    const resend = new Set(options.resendUnreconciled ? unreconciled : []);
    const queue = input.rows.flatMap(({ row, body }) =>
      body && (ledger.state(row).state === "pending" || resend.has(row)) ? [{ row, body }] : [],
    );
    if (options.resendUnreconciled) unreconciled = [];
    await sendRows(run, poster, queue, options.concurrency);
    await state.written();
    progress.stop();

    // Answers lost in this run: a lead that was created is recognised now; the rest stay for the next run, as they do
    // when the run was stopped.
    if (!state.halted)
      unreconciled = [...new Set([...unreconciled, ...(await reconcileOpen(run, client, true))])].sort((a, b) => a - b);
  } catch (error) {
    progress.stop();
    if (!(error instanceof ReconcileError)) state.failed(error);
    else {
      state.stop = error.outcome.status === 401 ? "key" : "unavailable";
      state.cause = error.outcome;
      const { status } = error.outcome;
      progress.say(`Reconciliation stopped: ${error.outcome.error}${status ? ` (HTTP ${status})` : ""}`);
    }
  } finally {
    await state.settled();
    await writeResults(options.ledgerPath, input, (row) => ledger.state(row)).catch(state.failed);
    await ledger.close();
  }
  return unreconciled;
}

/** Rows no body can be formed from are rejected here, once. */
async function rejectUnformable({ input, ledger }: Run): Promise<void> {
  for (const { row, body, problem } of input.rows) {
    if (!body && ledger.state(row).state === "pending") {
      await ledger.append({
        type: "rejected",
        row,
        status: null,
        code: "INVALID_ROW",
        error: problem!,
        issues: [],
        requestId: null,
      });
    }
  }
}

/**
 * Reconciles rows at `intent` or `uncertain`; with `foundOnly`, rows not found stay as they are. Returns the rows
 * that cannot be reconciled.
 */
async function reconcileOpen({ input, ledger, progress }: Run, client: LeadsClient, foundOnly: boolean) {
  const open: Attempted[] = [];
  const claimed = new Set<number>();
  for (const { row, body } of input.rows) {
    const state = ledger.state(row);
    if (body && (state.state === "intent" || state.state === "uncertain"))
      open.push({ row, body, firstAttemptAt: state.firstAttemptAt });
    if (state.state === "created") claimed.add(state.referralId);
  }
  const unreconcilable: number[] = [];
  for (const verdict of await reconcile(client, open, claimed)) {
    const { row } = verdict;
    if (verdict.verdict === "created") {
      const { referralId, leadCustomerId } = verdict.lead;
      await ledger.append({ type: "created", row, referralId, leadCustomerId, requestId: null, reconciled: true });
      progress.event({ event: "reconciled", row, result: "created", referralId, leadCustomerId });
    } else if (verdict.verdict === "absent" && !foundOnly) {
      await ledger.append({ type: "absent", row, at: new Date().toISOString() });
      progress.event({ event: "reconciled", row, result: "absent" });
    } else if (verdict.verdict === "unreconcilable") {
      unreconcilable.push(row);
      progress.event({ event: "reconciled", row, result: "unreconcilable", why: verdict.why });
    }
  }
  return unreconcilable;
}

/** Exit codes of the importer's file problems (lib/importer/files.ts). */
const FILE_ERROR_EXIT: Record<ImportFileError["kind"], number> = {
  busy: EXIT.TEMPFAIL,
  usage: EXIT.USAGE,
  "not-regular": EXIT.CANTCREAT,
  io: EXIT.IOERR,
};

function usage(message: string, exitCode: number = EXIT.USAGE): ImportResult {
  process.stderr.write(`${message}\n`);
  return { exitCode, total: 0, created: 0, rejected: 0, uncertain: 0, unreconciled: [] };
}

/** --dry-run: every row through the service's own schema; nothing is sent or written. */
function dryRun(input: Input, options: ImportOptions): ImportResult {
  const progress = new Progress(
    () => ({ total: input.rows.length, created: 0, rejected: 0, uncertain: 0 }),
    options.json,
  );
  let invalid = 0;
  for (const { row, body, problem } of input.rows) {
    const parsed = body ? validate(createLeadBody, body) : null;
    if (parsed?.success) continue;
    invalid++;
    const issues = parsed
      ? parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }))
      : [{ path: "", message: problem! }];
    progress.event({ event: "row", row, result: "invalid", issues });
    if (invalid <= LISTED_ROWS)
      progress.say(`  row ${row}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ")}`);
  }
  progress.say(
    `${options.file}: ${input.rows.length - invalid} of ${input.rows.length} rows valid, ${invalid} invalid (dry run: nothing sent).`,
  );
  const exitCode = invalid ? EXIT.DATA : EXIT.OK;
  progress.event({ event: "summary", total: input.rows.length, invalid, exitCode });
  return { exitCode, total: input.rows.length, created: 0, rejected: invalid, uncertain: 0, unreconciled: [] };
}
