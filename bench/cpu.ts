// CPU accounting from /proc: CPU ms per request of a server's process group, of the
// benchmark's PostgreSQL cluster and of the whole machine; and a server's memory.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ProcessGroup } from "@/scripts/process-group";
import { round, round2, type Load } from "./load";

export interface CpuMs {
  server: number;
  database: number;
  machine: number;
}

const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));

function pids(args: string[]): string[] {
  return execFileSync("ps", ["-o", "pid=", ...args], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.trim());
}

function ticks(pid: string): number {
  try {
    // Fields after the command name, which can hold spaces: utime, stime, then cutime and cstime, the time
    // of ended children (PostgreSQL's closed connections count in the postmaster's).
    const fields = readFileSync(`/proc/${pid.trim()}/stat`, "utf8").split(") ")[1].split(" ");
    return fields.slice(11, 15).reduce((total, field) => total + Number(field), 0);
  } catch {
    return 0; // the process ended in between
  }
}

const cpuMs = (list: string[]) => list.reduce((total, pid) => total + ticks(pid), 0) * TICK_MS;

/**
 * The CPU of one PostgreSQL cluster: its postmaster (from `postmaster.pid` in its data
 * directory) and the backends it started, not any other PostgreSQL on the machine.
 */
function databaseCpuMs(dataDir: string): number {
  const postmaster = readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0].trim();
  return cpuMs([postmaster, ...pids(["--ppid", postmaster])]);
}

function machineCpuMs(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user + nice + system + irq + softirq + steal) * TICK_MS;
}

function cpuNow(group: Pick<ProcessGroup, "pid">, databaseDir: string): CpuMs {
  return {
    server: cpuMs(pids(["-g", String(group.pid)])),
    database: databaseCpuMs(databaseDir),
    machine: machineCpuMs(),
  };
}

/** Runs `run` and returns its result with the CPU ms per request it cost the server, PostgreSQL and the machine. */
export async function withCpu(
  group: Pick<ProcessGroup, "pid">,
  databaseDir: string,
  run: () => Promise<Load>,
): Promise<Load & { cpuMs: CpuMs }> {
  const before = cpuNow(group, databaseDir);
  const result = await run();
  const after = cpuNow(group, databaseDir);
  const perRequest = (key: keyof CpuMs) => round2((after[key] - before[key]) / result.requests);
  return {
    ...result,
    cpuMs: { server: perRequest("server"), database: perRequest("database"), machine: perRequest("machine") },
  };
}

/** Resident memory of the `next-server` process inside a server's process group, in MB. */
export function serverRssMb(group: ProcessGroup): number {
  const lines = execFileSync("ps", ["-o", "rss=,args=", "-g", String(group.pid)], { encoding: "utf8" }).split("\n");
  const server = lines.find((line) => line.includes("next-server"));
  if (!server) throw new Error("no next-server process found");
  return round(Number(server.trim().split(/\s+/)[0]) / 1024);
}
