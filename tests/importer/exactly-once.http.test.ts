import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { EXIT } from "@/lib/importer/run";
import { insertPerson } from "../helpers/read-fixtures";
import { startServer } from "../helpers/server";
import {
  db,
  server,
  type Row,
  writeCsv,
  valid,
  startImport,
  runImport,
  runImportWithin,
  STACK_LINE,
  lockOwner,
  leadsNamed,
  ledgerEntries,
  rowsLeftAt,
  waitForCreated,
  expectOneLeadPerRow,
  droppingProxy,
  setUpImporterServer,
  restartServer,
} from "../helpers/importer-run";

setUpImporterServer();

describe("importer", () => {
  it("waits Retry-After and resends the rows a rate-limited server refused 429, exactly one lead per row", async () => {
    const limited = await startServer(db.url, { LEADS_RATE_LIMIT_CREATE: "4/s" });
    try {
      const rows = Array.from({ length: 12 }, (_, i) => valid("Limited", i));
      const file = await writeCsv("limited.csv", rows);
      const result = await runImport(file, ["--json"], limited.baseUrl);
      expect(result.code, result.stderr).toBe(EXIT.OK);
      await expectOneLeadPerRow(file, "Limited", rows);
      // 12 rows at 4 per second: some were refused and sent again.
      expect(limited.output()).toContain('"code":"RATE_LIMITED"');
    } finally {
      await limited.stop();
    }
  }, 120_000);

  it("finishes with exactly one lead per row after the server is killed with SIGKILL mid-import", async () => {
    const rows = Array.from({ length: 200 }, (_, i) => valid("Crash", i + 1));
    const file = await writeCsv("crash.csv", rows);
    const importer = startImport(file);
    await waitForCreated(file, 40);
    process.kill(-server.pid, "SIGKILL");
    const first = await importer.done;
    expect(first.code, first.stderr).toBe(EXIT.UNAVAILABLE);
    expect((await leadsNamed("Crash Lead ")).length).toBeLessThan(rows.length);
    const inFlight = await rowsLeftAt(file, "intent", "uncertain"); // POSTs the kill cut off: committed or not
    expect(inFlight.length).toBeGreaterThan(0);

    await restartServer();
    const second = await runImport(file);
    expect(second.code, second.stderr).toBe(EXIT.OK);
    await expectOneLeadPerRow(file, "Crash", rows);
  }, 180_000);

  it("finishes with exactly one lead per row after the importer itself is killed with SIGKILL", async () => {
    const rows = Array.from({ length: 200 }, (_, i) => valid("Killed", i + 1));
    const file = await writeCsv("killed.csv", rows);
    const importer = startImport(file);
    await waitForCreated(file, 40);
    importer.kill("SIGKILL");
    await importer.done;
    expect(existsSync(`${file}.ledger.jsonl.lock`)).toBe(true); // left behind; the next run takes it over
    expect((await rowsLeftAt(file, "intent")).length).toBeGreaterThan(0); // outcomes never recorded

    const second = await runImport(file);
    expect(second.code, second.stderr).toBe(EXIT.OK);
    await expectOneLeadPerRow(file, "Killed", rows);
  }, 180_000);

  it("reconciles a connection dropped after the server committed as created, without sending it again", async () => {
    const rows = Array.from({ length: 6 }, (_, i) => valid("Dropped", i + 1));
    const proxy = await droppingProxy((body) => body.includes("Dropped Lead 3"));
    const file = await writeCsv("dropped.csv", rows);
    const result = await runImport(file, ["--json"], proxy.baseUrl);
    expect(result.code, result.stderr).toBe(EXIT.OK);
    expect(proxy.posts.filter((b) => b.includes("Dropped Lead 3"))).toHaveLength(1);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.find((e) => e.row === 3 && e.event === "row")).toMatchObject({
      result: "uncertain",
      reason: "connection",
    });
    expect(events.find((e) => e.row === 3 && e.event === "reconciled")).toMatchObject({ result: "created" });
    expect((await ledgerEntries(file)).filter((e) => e.row === 3).map((e) => e.type)).toEqual([
      "intent",
      "uncertain",
      "created",
    ]);
    await expectOneLeadPerRow(file, "Dropped", rows);
    await proxy.close();

    // A running import holds the ledger's lock; the ledger belongs to this input: a changed file is refused.
    await writeFile(`${file}.ledger.jsonl.lock`, lockOwner(process.pid));
    const locked = await runImport(file);
    expect(locked.code).toBe(EXIT.TEMPFAIL);
    expect(locked.stderr).toContain(`Another import (pid ${process.pid}`);
    await rm(`${file}.ledger.jsonl.lock`);
    await writeFile(file, `${await readFile(file, "utf8")}Extra Lead,0123456789,Dropped Source,,,,,,,,\n`);
    const changed = await runImport(file);
    expect(changed.code).toBe(EXIT.USAGE);
    expect(changed.stderr).toContain("The input changed since");
  }, 120_000);

  it("reports a person-referrer row left uncertain and does not send it again unless told to", async () => {
    const personId = await insertPerson(db.sql, "Person Referrer For Import");
    const rows: Row[] = [
      valid("Person", 1),
      { ...valid("Person", 2), referrer: undefined, referrerCustomerId: personId },
    ];
    const proxy = await droppingProxy((body) => body.includes("Person Lead 2"));
    const file = await writeCsv("person.csv", rows);
    const first = await runImport(file, [], proxy.baseUrl);
    expect(first.code, first.stderr).toBe(EXIT.TEMPFAIL);
    expect(first.stderr).toContain("Rows 2 may or may not have created a lead");

    const second = await runImport(file, [], proxy.baseUrl);
    expect(second.code).toBe(EXIT.TEMPFAIL);
    expect(second.stderr).toContain("Rows 2 may or may not have created a lead");
    expect(proxy.posts.filter((b) => b.includes("Person Lead 2"))).toHaveLength(1);
    expect(await leadsNamed("Person Lead 2")).toHaveLength(1);
    await proxy.close();

    // The operator checked the host system and chose to send it again: now there are two.
    const resent = await runImport(file, ["--resend-unreconciled"]);
    expect(resent.code, resent.stderr).toBe(EXIT.OK);
    expect(await leadsNamed("Person Lead 2")).toHaveLength(2);
  }, 120_000);

  it("stops reconciliation with one sentence on a listing without leads, or one whose hasMore never ends", async () => {
    const listings: [string, (url: URL) => unknown][] = [
      ["NoLeads", () => ({ pagination: { total: 0, limit: 500, offset: 0, hasMore: false } })],
      [
        "Endless",
        (url) => ({
          leads: [],
          pagination: { total: 1, limit: 500, offset: Number(url.searchParams.get("offset")), hasMore: true },
        }),
      ],
    ];
    for (const [tag, listing] of listings) {
      const rows = [valid(tag, 1), valid(tag, 2), valid(tag, 3)];
      const proxy = await droppingProxy((body) => body.includes(`${tag} Lead 2`), listing);
      const file = await writeCsv(`${tag}.csv`, rows);
      const result = await runImportWithin(60_000, file, [], proxy.baseUrl);
      await proxy.close();
      expect(result.code, result.stderr).toBe(EXIT.UNAVAILABLE);
      expect(result.stderr).toMatch(/^Reconciliation stopped: GET \/api\/leads/m);
      expect(result.stderr).not.toMatch(STACK_LINE);
      expect(proxy.posts.filter((b) => b.includes(`${tag} Lead 2`))).toHaveLength(1);
      expect(await rowsLeftAt(file, "uncertain")).toEqual([2]);
    }
  }, 150_000);
});
