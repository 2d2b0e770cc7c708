// The servers a run compares: the service as `npm run serve` starts it, the framework
// floor (bench/floor, a no-op route under `next start`) and the bare node:http + pg server.
import { execFileSync } from "node:child_process";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";
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
  bare: Server;
}

/** Builds the service and the framework floor (before any server starts, so the build's CPU is not measured). */
export function buildServers(): void {
  execFileSync("npm", ["run", "build"], { stdio: ["ignore", "ignore", "inherit"] });
  execFileSync("npx", ["next", "build", "bench/floor"], { stdio: ["ignore", "ignore", "inherit"] });
}

export async function startServers(databaseUrl: string): Promise<Servers> {
  const env = { DATABASE_URL: databaseUrl, LEADS_API_KEY: KEY };
  const start = async (command: string, args: (port: number) => string[], serverEnv: Record<string, string>, postPath: string, readyPath: string) => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const group = await startProcessGroup(command, args(port), { ...serverEnv, PORT: String(port) }, `${url}${readyPath}`);
    return { url, postPath, group };
  };
  const started: Server[] = [];
  try {
    started.push(await start("node", () => ["scripts/start.mjs", "--no-build"], env, "/api/leads", "/api/leads/sources"));
    started.push(await start("npx", (port) => ["next", "start", "bench/floor", "-p", String(port)], {}, "/api/noop", "/api/noop"));
    started.push(await start("npx", () => ["tsx", "bench/bare-server.ts"], env, "/api/leads", "/"));
  } catch (error) {
    await Promise.all(started.map((s) => s.group.stop()));
    throw error;
  }
  const [service, floor, bare] = started;
  return { service, floor, bare };
}

export async function stopServers(servers: Servers): Promise<void> {
  await Promise.all(Object.values(servers).map((s: Server) => s.group.stop()));
}
