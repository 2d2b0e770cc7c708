import { freePort, startProcessGroup } from "@/scripts/process-group";
import { TEST_KEY } from "./api";

export interface RunningServer {
  baseUrl: string;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts the production build as the README says (`npm run serve`, i.e.
 * scripts/start.mjs --no-build) on a free port against the given database, and
 * waits until it answers. `npm test` builds before the tests run.
 */
export async function startServer(databaseUrl: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const group = await startProcessGroup(
    "node",
    ["scripts/start.mjs", "--no-build"],
    { PORT: String(port), DATABASE_URL: databaseUrl, LEADS_API_KEY: TEST_KEY, LEADS_ACCESS_LOG: "on", ...env },
    `${baseUrl}/api/leads/sources`,
  );
  return { baseUrl, output: group.output, stop: group.stop };
}
