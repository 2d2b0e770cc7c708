import { afterAll, beforeAll } from "vitest";
import { freePort, startProcessGroup } from "@/scripts/process-group";
import { TEST_KEY } from "./api";
import { createTestDatabase, type TestDatabase } from "./db";

export interface RunningServer {
  baseUrl: string;
  /** The process group (kill -pid ends the server without letting it shut down). */
  pid: number;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts the production build as the README says (`npm run serve`, i.e.
 * lib/runtime/start.mjs --no-build) on a free port against the given database, and
 * waits until it is ready (on `port` if given, e.g. to restart a killed server at the
 * same address). `npm test` builds before the tests run.
 */
export async function startServer(
  databaseUrl: string,
  env: Record<string, string> = {},
  port?: number,
): Promise<RunningServer> {
  port ??= await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const group = await startProcessGroup(
    "node",
    ["lib/runtime/start.mjs", "--no-build"],
    { PORT: String(port), DATABASE_URL: databaseUrl, LEADS_API_KEY: TEST_KEY, LEADS_ACCESS_LOG: "on", ...env },
    `${baseUrl}/api/leads/sources`,
  );
  // Next answers before its start-up work (migrations, configured sources) is done; tests start after it.
  for (const deadline = Date.now() + 60_000; ;) {
    const ready = await fetch(`${baseUrl}/api/health/ready`).then(
      (response) => response.status,
      () => null,
    );
    if (ready === 200) break;
    if (Date.now() > deadline) {
      await group.stop();
      throw new Error(`The server did not become ready within 60 s\n${group.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { baseUrl, pid: group.pid, output: group.output, stop: group.stop };
}

/**
 * A test file's own database and production server: started before its first test,
 * stopped after its last. Read `db` and `server` inside the tests (they are set by then).
 */
export function serverForThisFile(): { readonly db: TestDatabase; readonly server: RunningServer } {
  const running = {} as { db: TestDatabase; server: RunningServer };
  beforeAll(async () => {
    running.db = await createTestDatabase({ use: false });
    running.server = await startServer(running.db.url);
  }, 120_000);
  afterAll(async () => {
    await running.server?.stop();
    await running.db?.sql.end();
  });
  return running;
}
