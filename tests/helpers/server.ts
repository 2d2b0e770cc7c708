import { spawn, type ChildProcess } from "node:child_process";
import { TEST_KEY } from "./api";
import { freePort } from "./net";

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
  let output = "";
  const child = spawn("node", ["scripts/start.mjs", "--no-build"], {
    env: { ...process.env, PORT: String(port), DATABASE_URL: databaseUrl, LEADS_API_KEY: TEST_KEY, ...env },
    detached: true, // its own process group, so stop() also ends `next start`
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const server = { baseUrl, output: () => output, stop: () => stop(child) };
  try {
    await waitUntilAnswering(baseUrl, child);
  } catch (error) {
    await server.stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return server;
}

async function waitUntilAnswering(baseUrl: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      await fetch(`${baseUrl}/api/leads/sources`, { signal: AbortSignal.timeout(2_000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error("server did not answer within 60 s");
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.kill(-child.pid!, "SIGTERM");
  return exited;
}
