import { spawn } from "node:child_process";
import { createServer } from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { EXIT, MAX_SENDS_PER_ROW } from "@/lib/importer/run";
import { TEST_KEY } from "../helpers/api";
import {
  dir,
  writeCsv,
  valid,
  startImport,
  runImport,
  STACK_LINE,
  leadsNamed,
  rowsLeftAt,
  waitForCreated,
  expectOneLeadPerRow,
  droppingProxy,
  setUpImporterServer,
} from "../helpers/importer-run";

setUpImporterServer();

describe("importer: stopped by a signal", () => {
  /** How the importer is started: directly, through npm, and through `timeout` around npm, as operators run it. */
  const LAUNCH = {
    direct: [process.execPath, "--import", "tsx", "scripts/import.ts"],
    npm: ["npm", "run", "import", "--"],
    timeout: ["timeout", "--preserve-status", "-s", "TERM", "8", "npm", "run", "import", "--"],
  };
  /**
   * Who gets the signal: the process started (as `kill PID` sends it), or its whole group (Ctrl-C). `timeout` sends its
   * own SIGTERM, after 8 s.
   */
  const cases: [keyof typeof LAUNCH, "SIGTERM" | "SIGINT", "process" | "group"][] = [
    ["npm", "SIGTERM", "process"],
    ["npm", "SIGINT", "process"],
    ["npm", "SIGINT", "group"],
    ["direct", "SIGTERM", "process"],
    ["direct", "SIGINT", "group"],
    ["timeout", "SIGTERM", "process"],
  ];

  it.each(cases)(
    "%s, %s to the %s: the requests in flight finish, exit 75, no process left, and a resume finishes",
    async (launch, signal, target) => {
      const tag = `Signal${launch}${signal}${target}`;
      const rows = Array.from({ length: 200 }, (_, i) => valid(tag, i + 1));
      const file = await writeCsv(`${tag}.csv`, rows);
      const proxy = await droppingProxy(() => false, undefined, 300);
      const [command, ...prefix] = LAUNCH[launch];
      const child = spawn(command, [...prefix, file, "--base-url", proxy.baseUrl], {
        env: { ...process.env, LEADS_API_KEY: TEST_KEY },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true, // a process group of its own, as a terminal gives a command
      });
      let stderr = "";
      child.stderr!.on("data", (c) => (stderr += c));
      child.stdout!.resume();
      const exited = new Promise<number | string>((resolve) => child.on("exit", (code, sig) => resolve(code ?? sig!)));
      try {
        await waitForCreated(file, 3);
        if (launch !== "timeout") process.kill(target === "group" ? -child.pid! : child.pid!, signal);
        const code = await exited;
        expect(code, stderr).toBe(EXIT.TEMPFAIL);
        expect(() => process.kill(-child.pid!, 0), "a process of the group is still running").toThrow(/ESRCH/);
        expect(stderr.match(/finishing the requests in flight, then stopping/g), stderr).toHaveLength(1);
        expect(stderr).toMatch(
          /^The run was stopped before every row was sent \(\d+ not sent\): run the same command again\.$/m,
        );
        expect(stderr).not.toContain("no known outcome");
        expect(stderr).not.toMatch(STACK_LINE);
        expect(await rowsLeftAt(file, "intent", "uncertain")).toEqual([]);
      } finally {
        if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
        await proxy.close();
      }
      const created = await leadsNamed(`${tag} Lead `);
      expect(created.length).toBeGreaterThan(0);
      expect(created.length).toBeLessThan(rows.length);

      const resumed = await runImport(file);
      expect(resumed.code, resumed.stderr).toBe(EXIT.OK);
      await expectOneLeadPerRow(file, tag, rows);
    },
    90_000,
  );

  it("exits through `npm run import` with the importer's own codes", async () => {
    const file = await writeCsv("npm-codes.csv", [valid("NpmCodes", 1), { ...valid("NpmCodes", 2), leadName: "x" }]);
    const npm = (args: string[]) =>
      new Promise<number | null>((resolve) =>
        spawn("npm", ["run", "import", "--", ...args], { stdio: "ignore" }).on("exit", (code) => resolve(code)),
      );
    expect(await npm([file, "--dry-run"])).toBe(EXIT.DATA);
    expect(await npm([path.join(dir, "no-such-file.csv"), "--dry-run"])).toBe(EXIT.USAGE);
    expect(await npm(["--help"])).toBe(EXIT.OK);
  }, 60_000);

  /** A server that refuses every POST 429 with this Retry-After. */
  async function alwaysLimited(retryAfterSeconds: number) {
    const posts: string[] = [];
    const limiter = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.method === "POST") posts.push(Buffer.concat(chunks).toString());
      res
        .writeHead(429, { "content-type": "application/json", "retry-after": String(retryAfterSeconds) })
        .end(JSON.stringify({ error: "Too many requests: try again later.", code: "RATE_LIMITED" }));
    });
    await new Promise<void>((resolve) => limiter.listen(0, "127.0.0.1", resolve));
    return {
      baseUrl: `http://127.0.0.1:${(limiter.address() as AddressInfo).port}`,
      posts,
      close: () => {
        limiter.closeAllConnections();
        return new Promise((resolve) => limiter.close(resolve));
      },
    };
  }

  it(`sends a row refused 429 at most ${MAX_SENDS_PER_ROW} times in all, then leaves it unsent`, async () => {
    const limiter = await alwaysLimited(0);
    try {
      const file = await writeCsv("always-limited.csv", [valid("AlwaysLimited", 1)]);
      const result = await runImport(file, [], limiter.baseUrl);
      expect(result.code, result.stderr).toBe(EXIT.UNAVAILABLE);
      expect(limiter.posts).toHaveLength(MAX_SENDS_PER_ROW);
      expect(await rowsLeftAt(file, "unsent")).toEqual([1]);
    } finally {
      await limiter.close();
    }
  }, 60_000);

  it("ends a wait for an hour's Retry-After on SIGTERM: exit 75 at once, the row left unsent", async () => {
    const limiter = await alwaysLimited(3_600);
    try {
      const file = await writeCsv("limited-for-an-hour.csv", [valid("HourLimited", 1)]);
      const importer = startImport(file, [], limiter.baseUrl);
      for (
        const deadline = Date.now() + 30_000;
        limiter.posts.length === 0;
        await new Promise((r) => setTimeout(r, 20))
      )
        if (Date.now() > deadline) throw new Error("no POST within 30 s");
      const signalled = Date.now();
      importer.kill("SIGTERM");
      const result = await importer.done;
      expect(Date.now() - signalled).toBeLessThan(10_000);
      expect(result.code, result.stderr).toBe(EXIT.TEMPFAIL);
      expect(result.stderr).toMatch(/^The run was stopped before every row was sent \(1 not sent\)/m);
      expect(limiter.posts).toHaveLength(1);
      expect(await rowsLeftAt(file, "unsent")).toEqual([1]);
    } finally {
      await limiter.close();
    }
  }, 60_000);
});
