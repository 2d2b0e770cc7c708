import { spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { lstat, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "@/lib/importer/run";
import {
  dir,
  writeCsv,
  valid,
  startImport,
  runImport,
  runImportWithin,
  releaseTogether,
  lockOwner,
  leadsNamed,
  waitForCreated,
  expectOneLeadPerRow,
  setUpImporterServer,
} from "../helpers/importer-run";

setUpImporterServer();

describe("importer", () => {
  it("lets two resumes started at once after a SIGKILL create exactly one lead per row, 20 times", async () => {
    for (let round = 1; round <= 20; round++) {
      const tag = `Race${round}`;
      const rows = Array.from({ length: 30 }, (_, i) => valid(tag, i + 1));
      const file = await writeCsv(`race-${round}.csv`, rows);
      const importer = startImport(file, ["--concurrency", "2"]);
      await waitForCreated(file, 5);
      importer.kill("SIGKILL");
      await importer.done;

      // Both resumes read the input from their own FIFO (same bytes, same ledger), released together,
      // so they reach the lock within the same millisecond rather than a process start-up apart.
      const fifos = ["a", "b"].map((side) => path.join(dir, `race-${round}-${side}.csv`));
      for (const fifo of fifos) execFileSync("mkfifo", [fifo]);
      const resumes = fifos.map((fifo) => startImport(fifo, ["--ledger", `${file}.ledger.jsonl`]));
      await releaseTogether(fifos, await readFile(file));
      const both = await Promise.all(resumes.map((r) => r.done));
      const output = both.map((r) => r.stderr).join("\n");
      const winner = both.findIndex((r) => r.code === EXIT.OK);
      expect(winner, output).not.toBe(-1);
      for (const loser of both.filter((r) => r.code !== EXIT.OK)) {
        // The loser of the race refuses at once, before reconciling or sending anything.
        expect(loser.code, output).toBe(EXIT.TEMPFAIL);
        expect(loser.stderr).toMatch(
          /^Another import \(pid \d+ on .+, started .+\) is using the ledger .+: wait for it to finish, then run the same command again\.\n$/,
        );
      }
      // The results sit beside the ledger the resumes shared, whatever their input's name.
      await expectOneLeadPerRow(file, tag, rows);
      expect(existsSync(`${file}.ledger.jsonl.lock`)).toBe(false);
    }
  }, 600_000);

  it("never takes over a lock it cannot read or one held on another host, and leaves it as it is", async () => {
    const rows = [valid("Locked", 1), valid("Locked", 2)];
    const file = await writeCsv("locked.csv", rows);
    const lock = `${file}.ledger.jsonl.lock`;
    for (const content of ["", '{"pid":', lockOwner(process.pid, "another-host.example")]) {
      await writeFile(lock, content);
      const result = await runImport(file);
      expect(result.code, result.stderr).toBe(EXIT.USAGE);
      expect(result.stderr).toMatch(/delete .+\.lock and run again\.\n$/);
      expect(await readFile(lock, "utf8")).toBe(content);
      expect(await leadsNamed("Locked Lead ")).toHaveLength(0);
    }
    await rm(lock);
    // A lock whose owner on this host is gone (a killed run) is taken over.
    await writeFile(lock, lockOwner(2 ** 22 + 1));
    const result = await runImport(file);
    expect(result.code, result.stderr).toBe(EXIT.OK);
    await expectOneLeadPerRow(file, "Locked", rows);
  }, 120_000);

  it("takes over a lock whose owner is a zombie: exited, but not yet reaped by its parent", async () => {
    const rows = [valid("Zombie", 1)];
    const file = await writeCsv("zombie.csv", rows);
    // sh starts a child that exits at once, then becomes `sleep`, which never reaps it.
    const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 60"], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      const zombie = Number(
        await new Promise<string>((resolve) => parent.stdout!.once("data", (c) => resolve(`${c}`))),
      );
      const state = () => readFile(`/proc/${zombie}/stat`, "utf8").then((stat) => stat.split(") ")[1][0]);
      for (const deadline = Date.now() + 10_000; (await state()) !== "Z"; await new Promise((r) => setTimeout(r, 20)))
        if (Date.now() > deadline) throw new Error(`pid ${zombie} did not become a zombie`);
      expect(() => process.kill(zombie, 0)).not.toThrow(); // signals alone would call it alive

      await writeFile(`${file}.ledger.jsonl.lock`, lockOwner(zombie));
      const result = await runImport(file);
      expect(result.code, result.stderr).toBe(EXIT.OK);
      await expectOneLeadPerRow(file, "Zombie", rows);
    } finally {
      parent.kill("SIGKILL");
    }
  }, 60_000);

  it("refuses at once with exit 73 when a FIFO or a directory stands at the lock's or the takeover's name", async () => {
    const file = await writeCsv("fifo.csv", [valid("Fifo", 1)]);
    const lock = `${file}.ledger.jsonl.lock`;
    const cases: [string, "FIFO" | "directory", string | null][] = [
      [lock, "FIFO", null],
      [`${lock}.takeover`, "FIFO", null],
      [`${lock}.takeover`, "FIFO", lockOwner(2 ** 22 + 1)], // beside a stale lock, which would be taken over
      [lock, "directory", null],
    ];
    for (const [name, kind, staleLock] of cases) {
      if (staleLock) await writeFile(lock, staleLock);
      if (kind === "FIFO") execFileSync("mkfifo", [name]);
      else await mkdir(name);
      const result = await runImportWithin(30_000, file);
      expect(result.code, result.stderr).toBe(EXIT.CANTCREAT);
      expect(result.stderr).toBe(
        `${name} is a ${kind}, not a regular file; the importer writes only regular files: remove it or give another path.\n`,
      );
      const left = await lstat(name);
      expect(kind === "FIFO" ? left.isFIFO() : left.isDirectory()).toBe(true);
      if (staleLock) expect(await readFile(lock, "utf8")).toBe(staleLock);
      await rm(name, { recursive: true });
      await rm(lock, { force: true });
    }
    expect(await leadsNamed("Fifo Lead ")).toHaveLength(0);
  }, 150_000);
});
