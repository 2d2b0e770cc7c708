import { setTimeout as sleep } from "node:timers/promises";
import { backoffMs, DEFAULT_RETRY, type CreateLeadRequest, type LeadsClient } from "@/lib/client/index";
import type { Run } from "@/lib/importer/run-state";

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

/** A row to send: its number in the input and its body. */
export interface QueuedRow {
  row: number;
  body: CreateLeadRequest;
}

/** A row taken from the queue; `intent` settles true once its intent is on disk, false if that write failed. */
interface Prepared extends QueuedRow {
  intent: Promise<boolean>;
}

type Outcome = Awaited<ReturnType<LeadsClient["createLead"]>>;

/**
 * Sends the queue's rows, `concurrency` at a time, until it is done or the run stops. `poster` sends each POST once:
 * this phase alone resends, so MAX_SENDS_PER_ROW counts every send.
 */
export async function sendRows(run: Run, poster: LeadsClient, queue: QueuedRow[], concurrency: number): Promise<void> {
  const { ledger, state } = run;
  let taken = 0;
  /** The next row, its intent on the way to disk; null once the queue is done or the run stops. */
  const prepare = (): Prepared | null => {
    if (taken >= queue.length || state.halted) return null;
    const { row, body } = queue[taken++];
    state.inFlight++;
    const intent = ledger.append({ type: "intent", row, at: new Date().toISOString() }).then(
      () => true,
      (error: unknown) => {
        state.failed(error);
        return false;
      },
    );
    return { row, body, intent };
  };
  // Each worker writes its next row's intent while its current POST is out, so the disk write is off the rows' path.
  const worker = async () => {
    for (let next = prepare(); next;) {
      const { row, body, intent } = next;
      const onDisk = await intent;
      if (!onDisk || state.halted) {
        state.inFlight--;
        // Its POST never left: the row is pending again, with nothing to reconcile.
        if (onDisk)
          state.record(ledger.append({ type: "unsent", row, status: null, code: null, error: "run stopped" }));
        break;
      }
      next = prepare();
      await send(run, poster, row, body).catch(state.failed);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
}

/** Sends a row whose intent is on disk (counted in flight by prepare) and records its outcome. */
async function send(run: Run, poster: LeadsClient, row: number, body: CreateLeadRequest): Promise<void> {
  let outcome: Outcome;
  try {
    outcome = await post(poster, body, run.state.signal);
  } finally {
    run.state.inFlight--;
  }
  recordOutcome(run, row, outcome);
  run.progress.sent();
}

/** The POST's outcome, sent again after each Retry-After of a refusal that wrote nothing. */
async function post(poster: LeadsClient, body: CreateLeadRequest, signal: AbortSignal | undefined): Promise<Outcome> {
  let outcome = await poster.createLead(body);
  for (let sends = 1; sends < MAX_SENDS_PER_ROW; sends++) {
    if (outcome.outcome !== "rejected" || outcome.retryAfterSeconds === undefined) break;
    const waitMs = backoffMs(RESEND_BACKOFF, sends, Math.min(outcome.retryAfterSeconds, LONGEST_RETRY_AFTER_S) * 1000);
    const stopped = await sleep(waitMs, undefined, { signal }).then(
      () => false,
      () => true,
    );
    if (stopped) break;
    outcome = await poster.createLead(body);
  }
  return outcome;
}

/** The ledger's line and the progress event for a row's outcome; a refusal about the server or key stops the run. */
function recordOutcome({ ledger, progress, state }: Run, row: number, outcome: Outcome): void {
  const { status, code, requestId } = outcome;
  switch (outcome.outcome) {
    case "ok": {
      const { referralId, leadCustomerId } = outcome.data.lead;
      state.record(ledger.append({ type: "created", row, referralId, leadCustomerId, requestId }));
      progress.event({ event: "row", row, result: "created", referralId, leadCustomerId, requestId });
      break;
    }
    case "rejected":
      if (DATA_ERROR_STATUSES.has(outcome.status)) {
        state.record(
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
      if (!(outcome.retryAfterSeconds !== undefined && state.signal?.aborted))
        state.stopFor(outcome.status === 401 ? "key" : "unavailable", outcome);
      state.record(ledger.append({ type: "unsent", row, status, code, error: outcome.error }));
      progress.event({ event: "row", row, result: "refused", status, code, requestId });
      break;
    case "unsent":
      state.stopFor("unavailable", outcome);
      state.record(ledger.append({ type: "unsent", row, status, code, error: outcome.error }));
      progress.event({ event: "row", row, result: "unsent", error: outcome.error });
      break;
    case "uncertain":
      state.record(
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
}
