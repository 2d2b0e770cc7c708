// The production build started as a host's own process, without the launcher: `next start` or the standalone
// `server.js`, with or without the launcher's preload and heap settings (docs/host-guide.md, "Deployment shapes").
import path from "node:path";
import { fileURLToPath } from "node:url";
import { heapArgs } from "@/lib/runtime/next-server-heap.mjs";
import { PRELOAD_FILE } from "@/scripts/host/manifest";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";

export type NextShape = "next-start" | "standalone";

export interface NextServerOptions {
  shape: NextShape;
  /** `node --import lib/preload/next-server-preload.mjs` and the launcher's heap settings; false: plain node. */
  preload: boolean;
  env: Record<string, string | undefined>;
  /** A fixed port, e.g. to restart a killed server at the address a load balancer knows. */
  port?: number;
}

export interface NextServer {
  baseUrl: string;
  port: number;
  group: ProcessGroup;
}

const ROOT = path.resolve(import.meta.dirname, "..");
/** Where `npm run build` leaves the standalone server (scripts/standalone-assets.mjs completes it). */
export const STANDALONE_DIR = path.join(ROOT, ".next", "standalone");

/** Starts it and waits until it answers its liveness check (which waits for nothing else). */
export async function startNextServer({ shape, preload, env, port }: NextServerOptions): Promise<NextServer> {
  port ??= await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // The standalone output carries its own copy of the preload (next.config.mjs traces it in).
  const cwd = shape === "standalone" ? STANDALONE_DIR : ROOT;
  const flags = preload ? [...heapArgs(), "--import", `./${PRELOAD_FILE}`] : [];
  const entry = shape === "standalone" ? "server.js" : fileURLToPath(import.meta.resolve("next/dist/bin/next"));
  const args = shape === "standalone" ? [...flags, entry] : [...flags, entry, "start", "-p", String(port)];
  const group = await startProcessGroup(
    process.execPath,
    args,
    // server.js reads PORT and HOSTNAME (it would bind the machine's hostname otherwise).
    { PORT: String(port), HOSTNAME: "127.0.0.1", ...env },
    `${baseUrl}/api/health/live`,
    { cwd },
  );
  return { baseUrl, port, group };
}

/** Until `${baseUrl}/api/health/ready` answers 200 (start-up work done, database answering), within 60 s. */
export async function waitUntilReady(baseUrl: string, waitMs = 60_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const status = await fetch(`${baseUrl}/api/health/ready`, { signal: AbortSignal.timeout(3_000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline)
      throw new Error(`${baseUrl} is not ready after ${waitMs / 1000} s (last answer: ${status || "none"})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
