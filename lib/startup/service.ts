import { database } from "@/lib/db/prisma";
import { classifyFailure } from "@/lib/db/failures";
import { ping } from "@/lib/db/store/health";
import { prepareDatabase } from "@/lib/startup/prepare";
import { uncountedLimitsProblem } from "@/lib/startup/limit-grants";
import { dataOperationsRefused } from "@/lib/settings.mjs";
import { logLine } from "@/lib/log-line.mjs";

/**
 * The server process's start-up work (migrations, configured sources), once per process. Liveness answers while it
 * runs; data requests and readiness wait for it, and a failed attempt is tried again by the next one.
 */
interface StartupState {
  prepared: boolean;
  attempt?: Promise<void>;
  probe?: Promise<boolean>;
}

// On globalThis: instrumentation.ts and the route handlers are separate bundles.
const globalForStartup = globalThis as typeof globalThis & { leadIntakeStartup?: StartupState };
const state = (globalForStartup.leadIntakeStartup ??= { prepared: false });

export function servicePrepared(): boolean {
  return state.prepared;
}

/** Resolves once the start-up work has been done in this process; rejects when this attempt failed. */
export function prepareService(): Promise<void> {
  if (state.prepared) return Promise.resolve();
  state.attempt ??= prepareDatabase(database(), process.env.DATABASE_URL!).then(
    () => {
      state.prepared = true;
    },
    (error: unknown) => {
      state.attempt = undefined;
      throw error;
    },
  );
  return state.attempt;
}

/**
 * For instrumentation.ts: one attempt; a failure is logged instead of stopping the server, by kind only, or as the
 * sentence of a lock held past its wait or a host object in a migration's way (lib/db/migrate.ts), which name no data.
 * Then a rate limit the database role cannot count is said in one sentence.
 */
export async function startService(): Promise<void> {
  try {
    await prepareService();
  } catch (error) {
    const said = error instanceof Error && ["MigrationLockTimeout", "HostObjectInTheWay"].includes(error.name);
    const msg = said
      ? `${error.message}; start-up is tried again by the next request or readiness check`
      : "start-up preparation failed; retried by the next request or readiness check";
    logLine("error", msg, { ...classifyFailure(error) });
    return;
  }
  const problem = await uncountedLimitsProblem(database()).catch(() => undefined);
  if (problem) logLine("error", problem);
}

/**
 * Readiness answers within 2 s (docs/operating.md, "Health checks"); a database that is
 * frozen or unreachable does not answer at all, so the check stops waiting after this.
 */
const READINESS_WAIT_MS = 1_500;

/**
 * True when start-up is done, the database answers within READINESS_WAIT_MS, and configured rate limits can be
 * counted. Concurrent checks share one probe, so a frozen database holds at most one connection for readiness.
 */
export async function checkReadiness(): Promise<boolean> {
  if (dataOperationsRefused()) return false; // a setting instrumentation.ts could not read: nothing of it started
  state.probe ??= probeDatabase().finally(() => {
    state.probe = undefined;
  });
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, READINESS_WAIT_MS, false);
  });
  try {
    return await Promise.race([state.probe, gaveUp]);
  } finally {
    clearTimeout(timer);
  }
}

async function probeDatabase(): Promise<boolean> {
  try {
    await prepareService();
    await ping(database());
    // A configured rate limit the role cannot count: not ready (docs/host-guide.md, "Grants").
    return (await uncountedLimitsProblem(database())) === undefined;
  } catch {
    return false;
  }
}
