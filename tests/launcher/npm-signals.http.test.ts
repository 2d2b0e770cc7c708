import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runningPostmaster } from "@/lib/runtime/embedded-postgres.mjs";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";
import { TEST_KEY } from "../helpers/api";
import { makeClone, type Clone } from "../helpers/clone";
import { commandLine, descendantsOf, listeningSockets, stillRunning } from "../helpers/process-tree";

/**
 * A supervisor signals the process it started, `npm run serve` itself; a terminal signals its group. Either way every
 * process under npm (the launcher, next-server, the embedded PostgreSQL) is gone within 10 s and neither port is held.
 * The importer's and `npm run dev`'s cases are in tests/importer/signals.http.test.ts and dev.http.test.ts.
 */
const STOP_MS = 10_000;

let clone: Clone | undefined;
let npm: ProcessGroup | undefined;

afterEach(async () => {
  await npm?.stop();
  if (clone) {
    const left = runningPostmaster(path.join(clone.dir, ".data", "postgres"));
    if (left) process.kill(left.pid, "SIGINT");
    await clone.remove();
  }
  clone = npm = undefined;
}, 60_000);

describe("a signal to npm run serve", () => {
  /** Who gets the signal: npm's process (a supervisor, `kill PID`), or its whole group (Ctrl-C in a terminal). */
  const cases: ["SIGTERM" | "SIGINT", "process" | "group"][] = [
    ["SIGTERM", "process"],
    ["SIGINT", "process"],
    ["SIGINT", "group"],
  ];

  it.each(cases)(
    "%s to the %s stops the launcher, next-server and PostgreSQL within 10 s and frees both ports",
    async (signal, target) => {
      clone = await makeClone();
      const port = await freePort();
      const postgresPort = await freePort();
      npm = await startProcessGroup(
        "npm",
        ["run", "serve"],
        {
          PORT: String(port),
          EMBEDDED_PG_PORT: String(postgresPort),
          LEADS_API_KEY: TEST_KEY,
          DATABASE_URL: undefined,
        },
        `http://127.0.0.1:${port}/api/health/live`,
        { cwd: clone.dir },
      );
      for (const deadline = Date.now() + 60_000; !npm.output().includes("Lead Intake Service ready at");) {
        if (Date.now() > deadline) throw new Error(`not ready within 60 s:\n${npm.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const under = descendantsOf(npm.pid);
      const commands = under.map(commandLine);
      expect(commands.filter((command) => command.includes("lib/runtime/start.mjs"))).toHaveLength(1);
      expect(
        commands.some((command) => /next-server|next\/dist\/bin\/next start/.test(command)),
        commands.join("\n"),
      ).toBe(true);
      expect(
        commands.some((command) => /\/postgres\b/.test(command)),
        commands.join("\n"),
      ).toBe(true);

      process.kill(target === "group" ? -npm.pid : npm.pid, signal);
      const left = await stillRunning([npm.pid, ...under], STOP_MS);
      expect(left.map((pid) => `${pid} ${commandLine(pid)}`)).toEqual([]);
      expect(listeningSockets(port)).toEqual([]);
      expect(listeningSockets(postgresPort)).toEqual([]);
      expect(await npm.exited).toBe(0);
      expect(npm.output()).not.toMatch(/^\s+at /m);
    },
    180_000,
  );
});
