// The servers a run compares: the service as `npm run serve` starts it, the framework
// floor (bench/floor, a no-op route under `next start`), the floor with a lead's database
// round trip (bench/floor's creation route, in its own process) and the bare node:http + pg server.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { heapArgs } from "@/lib/runtime/next-server-heap.mjs";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";
import { creationStatementForFloor } from "./lead-transaction";
import { KEY } from "./load";

export interface Server {
  /** Base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  /** The path a POST creates a lead at (the floor's does nothing). */
  postPath: string;
  group: ProcessGroup;
}

export interface Servers {
  service: Server;
  floor: Server;
  floorWithStatement: Server;
  bare: Server;
}

/** The floor's `next start` as the launcher starts the service's: Next itself, under the same heap settings. */
const floorArgs = (port: number) => [
  ...heapArgs(),
  fileURLToPath(import.meta.resolve("next/dist/bin/next")),
  "start",
  "bench/floor",
  "-p",
  String(port),
];

/** Builds the service and the framework floor (before any server starts, so the build's CPU is not measured). */
export function buildServers(): void {
  execFileSync("npm", ["run", "build"], { stdio: ["ignore", "ignore", "inherit"] });
  execFileSync("npx", ["next", "build", "bench/floor"], { stdio: ["ignore", "ignore", "inherit"] });
}

/** One server process group, ready once `readyPath` answers. */
async function startServer(
  command: string,
  args: (port: number) => string[],
  serverEnv: Record<string, string>,
  postPath: string,
  readyPath: string,
): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const group = await startProcessGroup(
    command,
    args(port),
    { ...serverEnv, PORT: String(port) },
    `${url}${readyPath}`,
  );
  return { url, postPath, group };
}

/** The service alone, as `npm run serve` starts it, for a measurement run on its own. */
export function startService(databaseUrl: string): Promise<Server> {
  const env = { DATABASE_URL: databaseUrl, LEADS_API_KEY: KEY };
  return startServer("node", () => ["lib/runtime/start.mjs", "--no-build"], env, "/api/leads", "/api/leads/sources");
}

export async function startServers(databaseUrl: string): Promise<Servers> {
  const env = { DATABASE_URL: databaseUrl, LEADS_API_KEY: KEY };
  const started: Server[] = [];
  try {
    started.push(await startService(databaseUrl));
    started.push(await startServer(process.execPath, floorArgs, {}, "/api/noop", "/api/noop"));
    const statementEnv = { DATABASE_URL: databaseUrl, BENCH_CREATION_STATEMENT: creationStatementForFloor() };
    started.push(await startServer(process.execPath, floorArgs, statementEnv, "/api/create", "/api/noop"));
    started.push(await startServer("npx", () => ["tsx", "bench/bare-server.ts"], env, "/api/leads", "/"));
  } catch (error) {
    await Promise.all(started.map((s) => s.group.stop()));
    throw error;
  }
  const [service, floor, floorWithStatement, bare] = started;
  return { service, floor, floorWithStatement, bare };
}

export async function stopServers(servers: Servers): Promise<void> {
  await Promise.all(Object.values(servers).map((s: Server) => s.group.stop()));
}
