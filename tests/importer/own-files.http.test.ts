import { execFileSync } from "node:child_process";
import { lstat, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "@/lib/importer/run";
import {
  dir,
  writeCsv,
  valid,
  runImport,
  STACK_LINE,
  leadsNamed,
  expectOneLeadPerRow,
  setUpImporterServer,
  mountFullDisk,
} from "../helpers/importer-run";

setUpImporterServer();

describe("importer", () => {
  it("refuses a --ledger that is not a ledger and leaves it byte-identical", async () => {
    const file = await writeCsv("notes-input.csv", [valid("Notes", 1)]);
    const notes = path.join(dir, "notes.txt");
    for (const original of ["my notes\nsecond line, no newline at the end", "", '{"type":"input"}\n{"torn']) {
      await writeFile(notes, original);
      const result = await runImport(file, ["--ledger", notes]);
      expect(result.code, result.stderr).toBe(EXIT.USAGE);
      expect(result.stderr).toBe(`${notes} is not an import ledger: give another --ledger, or none for the default.\n`);
      expect(await readFile(notes, "utf8")).toBe(original);
      expect(await leadsNamed("Notes Lead ")).toHaveLength(0);
    }
  }, 60_000);

  it("writes no file through a symbolic link: a linked results file or ledger is refused, a planted temporary name is ignored", async () => {
    const victim = path.join(dir, "victim.txt");
    await writeFile(victim, "keep me\n");
    const rows = [valid("Linked", 1), { ...valid("Linked", 2), leadMobileNumber: "12-ab" }];
    const file = await writeCsv("linked.csv", rows);

    for (const link of [`${file}.rejected.csv`, `${file}.created.csv`, `${file}.ledger.jsonl`]) {
      await symlink(victim, link);
      const result = await runImport(file);
      expect(result.code, result.stderr).toBe(EXIT.CANTCREAT);
      expect(result.stderr).toBe(
        `${link} is a symbolic link, not a regular file; the importer writes only regular files: remove it or give another path.\n`,
      );
      expect(await leadsNamed("Linked Lead ")).toHaveLength(0);
      await rm(link);
    }

    for (const name of ["rejected.csv", "created.csv"]) await symlink(victim, `${file}.${name}.tmp`);
    const result = await runImport(file);
    expect(result.code, result.stderr).toBe(EXIT.DATA);
    expect((await lstat(`${file}.rejected.csv`)).isFile()).toBe(true);
    expect(await readFile(victim, "utf8")).toBe("keep me\n");
  }, 60_000);

  it("ends in one sentence when the ledger's disk is full, then resumes to exactly one lead per row", async () => {
    const fullDisk = await mountFullDisk();
    const rows = Array.from({ length: 300 }, (_, i) => valid("Full", i + 1));
    const file = await writeCsv("full.csv", rows);
    const ledger = path.join(fullDisk, "full.ledger.jsonl");

    const first = await runImport(file, ["--ledger", ledger]);
    expect(first.code, first.stderr).toBe(EXIT.IOERR);
    expect(first.stderr).toMatch(
      new RegExp(
        `^Could not write the ledger ${ledger} \\(ENOSPC: no space left on device\\b.*\\): fix that \\(disk space, permissions\\), then run the same command again\\.$`,
        "m",
      ),
    );
    expect(first.stderr).not.toMatch(STACK_LINE);
    expect((await leadsNamed("Full Lead ")).length).toBeLessThan(rows.length);

    execFileSync("mount", ["-o", "remount,size=4m", fullDisk]);
    const second = await runImport(file, ["--ledger", ledger]);
    expect(second.code, second.stderr).toBe(EXIT.OK);
    await expectOneLeadPerRow(file, "Full", rows, path.join(fullDisk, "full.created.csv"));
  }, 180_000);
});
