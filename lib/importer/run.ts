import { setTimeout as sleep } from "node:timers/promises";
import { backoffMs, DEFAULT_RETRY, LeadsClient, type CreateLeadRequest } from "@/lib/client/index";
import { createLeadBody, validate } from "@/lib/leads/schemas";
import { type Input, InputError, readInput } from "@/lib/importer/input";
import { checkRegularOrAbsent, ImportFileError } from "@/lib/importer/files";
import { Ledger } from "@/lib/importer/ledger";
import { Progress } from "@/lib/importer/progress";
import { type Attempted, reconcile, ReconcileError } from "@/lib/importer/reconcile";
import { checkResults, messages, resultPaths, writeResults } from "@/lib/importer/results";

/** Exit codes (sysexits.h), docs/operating.md, "Bulk importer". */
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

export interface ImportResult {
  exitCode: number;
  total: number;
  created: number;
  rejected: number;
  uncertain: number;
  unreconciled: number[];
}

/** A row taken from the queue; `intent` settles true once its intent is on disk, false if that write failed. */
interface Prepared {
  row: number;
  body: CreateLeadRequest;
  intent: Promise<boolean>;
}

/** Answers that say the row's data is wrong; any other refusal is about the server or the key. */
const DATA_ERROR_STATUSES = new Set([400, 413, 422]);
/**
 * A 429 (RATE_LIMITED, CREATION_BUSY) wrote nothing, so the same POST is sent again after its Retry-After (at most an
 * hour, the longest limit window) and a backoff: a row is sent at most this many times in all. The docs quote it.
 */
export const MAX_SENDS_PER_ROW = 20;
const LONGEST_RETRY_AFTER_S = 3_600;
/** The jitter added to a Retry-After, up to a second: it spreads rows refused together without stretching a run. */
const RESEND_BACKOFF = { ...DEFAULT_RETRY, maxDelayMs: 1_000 };
const LISTED_ROWS = 20;

export async function runImport(options: ImportOptions): Promise<ImportResult> {
  let input: Input;
  try {
    input = await readInput(options.file);
  } catch (error) {
    if (error instanceof InputError) return usage(error.message);
    throw error;
  }
  if (options.dryRun) return dryRun(input, options);

  let ledger: Ledger;
  try {
    // Every file this run writes is checked before anything is sent.
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
  const client = new LeadsClient({ baseUrl: options.baseUrl, apiKey: options.apiKey });
  // This client sends each POST once: send() alone resends, so MAX_SENDS_PER_ROW counts every send.
  const poster = new LeadsClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, retry: { maxAttempts: 1 } });
  const counts = () => {
    const { created, rejected, intent, uncertain } = ledger.counts();
    // Rows at `intent` whose POST is still under way are not uncertain (yet).
    return { total: input.rows.length, created, rejected, uncertain: intent + uncertain - inFlight };
  };
  let inFlight = 0;
  const progress = new Progress(counts, options.json);
  // Set inside callbacks too, so declared with `as` to keep TypeScript from narrowing them to null.
  let stop = null as "key" | "unavailable" | "disk" | null;
  /** The answer (or the failure to get one) that stopped the run, for its last sentence. */
  let stopCause = null as { status: number | null; code: string | null; error: string } | null;
  const stopFor = (
    why: "key" | "unavailable",
    cause: { status: number | null; code: string | null; error: string },
  ) => {
    stop ??= why;
    stopCause ??= cause;
  };
  let diskFailure = null as ImportFileError | null;
  let unreconciled: number[] = [];
  const writes: Promise<void>[] = [];

  /** A ledger or results write failed: nothing more is sent, and the run ends with that sentence. */
  const failed = (error: unknown) => {
    if (!(error instanceof ImportFileError)) throw error;
    stop = "disk";
    diskFailure ??= error;
  };
  const record = (pending: Promise<void>) => writes.push(pending.catch(failed));

  try {
    // Rows no body can be formed from are rejected here, once.
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

    // Resume: rows whose earlier attempt has no known outcome are reconciled before anything is sent.
    const verdicts = await reconcileOpen(false);
    unreconciled = verdicts.unreconciled;

    progress.start();
    const resend = new Set(options.resendUnreconciled ? unreconciled : []);
    const queue = input.rows.filter(
      ({ row, body }) => body && (ledger.state(row).state === "pending" || resend.has(row)),
    );
    if (options.resendUnreconciled) unreconciled = [];
    let taken = 0;
    /** The next row, its intent on the way to disk; null once the queue is done or the run stops. */
    const prepare = (): Prepared | null => {
      if (taken >= queue.length || stop || options.signal?.aborted) return null;
      const { row, body } = queue[taken++];
      inFlight++;
      const intent = ledger.append({ type: "intent", row, at: new Date().toISOString() }).then(
        () => true,
        (error: unknown) => {
          failed(error);
          return false;
        },
      );
      return { row, body: body!, intent };
    };
    // Each worker writes its next row's intent while its current POST is out, so the disk write is off the rows' path.
    const worker = async () => {
      for (let next = prepare(); next;) {
        const { row, body, intent } = next;
        const onDisk = await intent;
        if (!onDisk || stop || options.signal?.aborted) {
          inFlight--;
          // Its POST never left: the row is pending again, with nothing to reconcile.
          if (onDisk) record(ledger.append({ type: "unsent", row, status: null, code: null, error: "run stopped" }));
          break;
        }
        next = prepare();
        await send(row, body).catch(failed);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
    await Promise.all(writes);
    progress.stop();

    // Answers lost in this run: a lead that was created is recognised now; the rest stay for the next run, as they do
    // when the run was stopped.
    if (!stop && !options.signal?.aborted)
      unreconciled = [...new Set([...unreconciled, ...(await reconcileOpen(true)).unreconciled])].sort((a, b) => a - b);
  } catch (error) {
    progress.stop();
    if (error instanceof ReconcileError) {
      stop = error.outcome.status === 401 ? "key" : "unavailable";
      stopCause = error.outcome;
      progress.say(
        `Reconciliation stopped: ${error.outcome.error}${error.outcome.status ? ` (HTTP ${error.outcome.status})` : ""}`,
      );
    } else failed(error);
  } finally {
    await Promise.allSettled(writes);
    await writeResults(options.ledgerPath, input, (row) => ledger.state(row)).catch(failed);
    await ledger.close();
  }

  const c = counts();
  const result: ImportResult = { exitCode: EXIT.OK, ...c, unreconciled };
  const remaining = input.rows.some(
    ({ row }) => ledger.state(row).state !== "created" && ledger.state(row).state !== "rejected",
  );
  if (stop === "disk") result.exitCode = EXIT.IOERR;
  else if (stop === "key") result.exitCode = EXIT.NOPERM;
  else if (stop === "unavailable") result.exitCode = EXIT.UNAVAILABLE;
  else if (remaining) result.exitCode = EXIT.TEMPFAIL;
  else if (c.rejected) result.exitCode = EXIT.DATA;
  summarise(result);
  return result;

  /** Sends a row whose intent is on disk (counted in flight by prepare) and records its outcome. */
  async function send(row: number, body: CreateLeadRequest): Promise<void> {
    let outcome: Awaited<ReturnType<LeadsClient["createLead"]>>;
    try {
      outcome = await poster.createLead(body);
      for (let sends = 1; sends < MAX_SENDS_PER_ROW; sends++) {
        if (outcome.outcome !== "rejected" || outcome.retryAfterSeconds === undefined) break;
        const waitMs = backoffMs(
          RESEND_BACKOFF,
          sends,
          Math.min(outcome.retryAfterSeconds, LONGEST_RETRY_AFTER_S) * 1000,
        );
        const stopped = await sleep(waitMs, undefined, { signal: options.signal }).then(
          () => false,
          () => true,
        );
        if (stopped) break;
        outcome = await poster.createLead(body);
      }
    } finally {
      inFlight--;
    }
    const { status, code, requestId } = outcome;
    switch (outcome.outcome) {
      case "ok": {
        const { referralId, leadCustomerId } = outcome.data.lead;
        record(ledger.append({ type: "created", row, referralId, leadCustomerId, requestId }));
        progress.event({ event: "row", row, result: "created", referralId, leadCustomerId, requestId });
        break;
      }
      case "rejected":
        if (DATA_ERROR_STATUSES.has(outcome.status)) {
          record(
            ledger.append({
              type: "rejected",
              row,
              status,
              code,
              error: outcome.error,
              issues: outcome.issues,
              requestId,
            }),
          );
          progress.event({ event: "row", row, result: "rejected", status, code, issues: outcome.issues, requestId });
          break;
        }
        // A 429 whose wait the operator cut short (Ctrl-C) says nothing of the server: the row waits for the next run.
        if (!(outcome.retryAfterSeconds !== undefined && options.signal?.aborted))
          stopFor(outcome.status === 401 ? "key" : "unavailable", outcome);
        record(ledger.append({ type: "unsent", row, status, code, error: outcome.error }));
        progress.event({ event: "row", row, result: "refused", status, code, requestId });
        break;
      case "unsent":
        stopFor("unavailable", outcome);
        record(ledger.append({ type: "unsent", row, status, code, error: outcome.error }));
        progress.event({ event: "row", row, result: "unsent", error: outcome.error });
        break;
      case "uncertain":
        record(
          ledger.append({
            type: "uncertain",
            row,
            reason: outcome.reason,
            status,
            code,
            error: outcome.error,
            requestId,
          }),
        );
        progress.event({ event: "row", row, result: "uncertain", reason: outcome.reason, status, code, requestId });
        break;
    }
    progress.sent();
  }

  /** Reconciles rows at `intent` or `uncertain`; with `foundOnly`, rows not found stay as they are. */
  async function reconcileOpen(foundOnly: boolean): Promise<{ unreconciled: number[] }> {
    const open: Attempted[] = [];
    for (const { row, body } of input.rows) {
      const state = ledger.state(row);
      if (body && (state.state === "intent" || state.state === "uncertain"))
        open.push({ row, body, firstAttemptAt: state.firstAttemptAt });
    }
    const claimed = new Set<number>();
    for (const { row } of input.rows) {
      const state = ledger.state(row);
      if (state.state === "created") claimed.add(state.referralId);
    }
    const found: number[] = [];
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
        found.push(row);
        progress.event({ event: "reconciled", row, result: "unreconcilable", why: verdict.why });
      }
    }
    return { unreconciled: found };
  }

  function summarise(r: ImportResult): void {
    const paths = resultPaths(options.ledgerPath);
    const lines = [
      `${options.file}: ${r.created} of ${r.total} rows created (${paths.created}), ${r.rejected} rejected (${paths.rejected}), ${r.uncertain} uncertain.`,
    ];
    const rejectedRows = input.rows.filter(({ row }) => ledger.state(row).state === "rejected");
    for (const { row } of rejectedRows.slice(0, LISTED_ROWS)) {
      const state = ledger.state(row);
      if (state.state === "rejected") lines.push(`  row ${row}: ${state.code ?? state.status} ${messages(state)}`);
    }
    if (rejectedRows.length > LISTED_ROWS)
      lines.push(`  … ${rejectedRows.length - LISTED_ROWS} more in ${paths.rejected}`);
    if (r.unreconciled.length) {
      lines.push(
        `Rows ${list(r.unreconciled)} may or may not have created a lead and cannot be checked through the API (person referrers). ` +
          "Check them in the host system; they are not sent again unless --resend-unreconciled is given.",
      );
    }
    const unsent = r.total - r.created - r.rejected - r.uncertain;
    const tempfail = [
      r.uncertain
        ? "Some rows have no known outcome yet: run the same command again to reconcile and finish them."
        : "",
      unsent ? `The run was stopped before every row was sent (${unsent} not sent): run the same command again.` : "",
    ];
    const hint: Record<number, string> = {
      [EXIT.NOPERM]: "The key was refused (401): check LEADS_API_KEY, then run the same command again.",
      [EXIT.UNAVAILABLE]: unavailable(options.baseUrl, stopCause),
      [EXIT.TEMPFAIL]: tempfail.filter(Boolean).join("\n"),
      [EXIT.IOERR]: diskFailure?.message ?? "",
    };
    if (hint[r.exitCode]) lines.push(hint[r.exitCode]);
    progress.say(lines.join("\n"));
    progress.event({ event: "summary", ...r, exitCode: r.exitCode });
  }
}

/** Why the server could not take the rows, as one sentence naming it and the cause. */
function unavailable(
  baseUrl: string,
  cause: { status: number | null; code: string | null; error: string } | null,
): string {
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
