import { spawn, type ChildProcess } from "node:child_process";
import { connect, createServer } from "node:net";

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export interface ProcessGroup {
  pid: number;
  /** Everything the process printed so far (stdout and stderr); throws once it passed OUTPUT_LIMIT. */
  output(): string;
  /** Settles when the process exits: its exit code, or the signal that ended it. */
  exited: Promise<number | string>;
  /** Ends the whole group (e.g. npx and the `next start` it runs). */
  stop(): Promise<void>;
}

/**
 * What a group keeps of its output. Tests read all of it (no leak in any line); the benchmark's service prints an
 * access log line per request, hundreds of thousands in a run, which no one reads. Past this the rest is counted,
 * not kept, and output() refuses rather than answer with part of it.
 */
const OUTPUT_LIMIT = 64 * 1024 * 1024;

/**
 * Starts a server in its own process group and waits until `readyUrl` answers at all: an HTTP
 * URL, or tcp://HOST:PORT for a server that speaks something else (PgBouncer), which is ready
 * once it accepts a connection.
 */
export async function startProcessGroup(
  command: string,
  args: string[],
  /** Added to this process's environment; an undefined value removes the variable. */
  env: Record<string, string | undefined>,
  readyUrl: string,
  { cwd }: { cwd?: string } = {},
): Promise<ProcessGroup> {
  let output = "";
  let kept = 0;
  let dropped = 0;
  const keep = (chunk: Buffer) => {
    if (dropped === 0 && kept + chunk.length <= OUTPUT_LIMIT) {
      output += chunk;
      kept += chunk.length;
    } else dropped += chunk.length;
  };
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? code!)),
  );
  const read = () => {
    if (dropped) throw new Error(`${command} printed more than ${OUTPUT_LIMIT} bytes (${dropped} more not kept)`);
    return output;
  };
  const group = { pid: child.pid!, output: read, exited, stop: () => stop(child) };
  try {
    await waitUntilAnswering(readyUrl, child);
  } catch (error) {
    await group.stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return group;
}

async function waitUntilAnswering(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: server exited with ${child.exitCode}`);
    try {
      await (url.startsWith("tcp://") ? accepts(new URL(url)) : fetch(url, { signal: AbortSignal.timeout(2_000) }));
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`${url}: no answer within 60 s`);
}

function accepts({ hostname, port }: URL): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), timeout: 2_000 });
    socket.once("connect", () => socket.end(resolve));
    socket.once("timeout", () => socket.destroy(new Error("connect timeout")));
    socket.once("error", reject);
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.kill(-child.pid!, "SIGTERM");
  return exited;
}
