import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * The process that listens on a TCP port, found through /proc (Linux): the
 * socket's inode from /proc/net/tcp{,6}, then the process holding it. For a
 * server started with startServer() that is the `next-server` process itself,
 * not the launcher or npx in front of it.
 */
export function listeningPid(port: number): number | null {
  const inodes = new Set(listeningSockets(port).map((socket) => socket.inode));
  if (!inodes.size) return null;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${entry}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode && inodes.has(inode)) return Number(entry);
      } catch {
        // the fd closed meanwhile
      }
    }
  }
  return null;
}

/** The process's command line, arguments joined by spaces ("" once it has exited). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

/** Resident set size in KiB (VmRSS), or null once the process has exited. */
export function rssKiB(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kib === undefined ? null : Number(kib);
  } catch {
    return null;
  }
}

/** The `next-server` process behind a base URL such as http://127.0.0.1:PORT. */
export function nextServerPid(baseUrl: string): number {
  const pid = listeningPid(Number(new URL(baseUrl).port));
  if (pid === null) throw new Error(`nothing listens on ${baseUrl}`);
  const command = commandLine(pid);
  if (!/next-server|next start|next\/dist/.test(command))
    throw new Error(`${baseUrl} is served by "${command}", not next-server`);
  return pid;
}

/** The direct children of a process (by the parent pid in /proc/PID/stat). */
export function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name, which is in parentheses and may hold spaces: state, ppid, …
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) children.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return children;
}

/** Every process under `root`: its children, theirs, and so on. */
export function descendantsOf(root: number): number[] {
  const children = childrenOf(root);
  return [...children, ...children.flatMap(descendantsOf)];
}

/** Whether a process is still running (a zombie, exited but not yet reaped by its parent, is not). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** The processes of `pids` still running after waiting up to `withinMs` for them to exit (none, once all have). */
export async function stillRunning(pids: number[], withinMs: number): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  let left = pids.filter(running);
  while (left.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = left.filter(running);
  }
  return left;
}

/** The TCP sockets listening on `port`, from /proc/net/tcp{,6}: each one's local address (kernel hex) and inode. */
export function listeningSockets(port: number): { address: string; inode: string }[] {
  const sockets: { address: string; inode: string }[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      const [address, localPort] = cols[1].split(":");
      if (parseInt(localPort, 16) === port && cols[3] === "0A") sockets.push({ address, inode: cols[9] });
    }
  }
  return sockets;
}
