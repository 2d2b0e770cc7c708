import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { PRELOAD_FILE } from "@/scripts/host/manifest";
import { freePort } from "@/scripts/process-group";

/** The accept queue of a server listening as Next does, `listen(port, hostname)`, as `ss` reports it (Send-Q). */
async function backlogOf(nodeArgs: string[]): Promise<number> {
  const port = await freePort();
  const script = `const s = require("node:http").createServer(); s.listen(${port}, "127.0.0.1");
    s.on("listening", () => console.log("listening"));`;
  const child = spawn(process.execPath, [...nodeArgs, "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    await once(child.stdout, "data");
    const line = execFileSync("ss", ["-ltnH", `sport = :${port}`], { encoding: "utf8" }).trim();
    return Number(line.split(/\s+/)[2]);
  } finally {
    child.kill();
  }
}

describe('the preload\'s listen backlog (docs/decisions.md, "Creation sheds load")', () => {
  it("gives Next's listen(port, hostname) a queue of 4,096, as far as net.core.somaxconn allows", async () => {
    const cap = Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8"));
    expect(await backlogOf(["--import", `./${PRELOAD_FILE}`])).toBe(Math.min(4096, cap));
  });

  it("is Node's 511 without the preload", async () => {
    expect(await backlogOf([])).toBe(511);
  });
});
