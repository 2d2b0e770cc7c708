import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { CSV_COLUMNS } from "@/lib/importer/input";
import { EXIT } from "@/lib/importer/run";
import {
  type Row,
  writeCsv,
  valid,
  runImport,
  leadsNamed,
  parseCsv,
  droppingProxy,
  setUpImporterServer,
} from "../helpers/importer-run";

setUpImporterServer();

describe("importer", () => {
  it("imports a few hundred rows, rejects the invalid ones with exact result files and exits 65", async () => {
    const rows: Row[] = [];
    const invalid = new Map<number, { status: string; code: string; path: string }>();
    for (let i = 1; i <= 300; i++) {
      const row = valid("Bulk", i);
      if (i % 25 === 0) {
        const kind = (i / 25) % 4;
        if (kind === 0) row.leadMobileNumber = "12-ab";
        if (kind === 1) row.relationship = "Cousin";
        if (kind === 2) row.assignedAgentId = "plat_nobody";
        if (kind === 3) row.referrerCustomerId = "cus_also";
        invalid.set(
          i,
          [
            { status: "400", code: "INVALID_INPUT", path: "leadMobileNumber" },
            { status: "400", code: "INVALID_INPUT", path: "relationship" },
            { status: "422", code: "INVALID_AGENT", path: "" },
            { status: "", code: "INVALID_ROW", path: "" },
          ][kind],
        );
      }
      rows.push(row);
    }
    const file = await writeCsv("bulk.csv", rows);
    const result = await runImport(file);
    expect(result.code, result.stderr).toBe(EXIT.DATA);
    expect(result.stderr).toContain("288 of 300 rows created");

    const validRows = rows.filter((_, i) => !invalid.has(i + 1));
    const stored = await leadsNamed("Bulk Lead ");
    const byName = new Map(stored.map((s) => [s.name, s]));
    expect(stored).toHaveLength(validRows.length);
    const createdLines = rows.flatMap((r, i) =>
      invalid.has(i + 1) ? [] : [`${i + 1},${byName.get(r.leadName!)!.id},${byName.get(r.leadName!)!.customer}`],
    );
    expect(await readFile(`${file}.created.csv`, "utf8")).toBe(
      `row,referralId,leadCustomerId\n${createdLines.join("\n")}\n`,
    );

    const [header, ...rejected] = parseCsv(await readFile(`${file}.rejected.csv`, "utf8"));
    expect(header).toEqual(["row", "status", "code", "messages", ...CSV_COLUMNS]);
    expect(rejected.map(([row, status, code]) => [row, status, code])).toEqual(
      [...invalid].map(([i, e]) => [String(i), e.status, e.code]),
    );
    for (const [row, , , messages, ...fields] of rejected) {
      const { path: field } = invalid.get(Number(row))!;
      expect(messages.startsWith(field ? `${field}: ` : ""), messages).toBe(true);
      expect(messages.length).toBeGreaterThan(field.length + 2);
      expect(fields).toEqual(CSV_COLUMNS.map((c) => rows[Number(row) - 1][c] ?? ""));
    }

    // Run again: every row already has an outcome, nothing is sent, the same files result.
    const again = await runImport(file);
    expect(again.code).toBe(EXIT.DATA);
    expect(await leadsNamed("Bulk Lead ")).toHaveLength(validRows.length);
  }, 120_000);

  it("sends nothing and writes nothing with --dry-run, listing the invalid rows", async () => {
    const proxy = await droppingProxy(() => false);
    const file = await writeCsv("dry.csv", [valid("Dry", 1), { ...valid("Dry", 2), leadName: "x" }, valid("Dry", 3)]);
    const result = await runImport(file, ["--dry-run", "--json"], proxy.baseUrl);
    expect(result.code).toBe(EXIT.DATA);
    expect(
      result.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))[0],
    ).toMatchObject({ event: "row", row: 2, result: "invalid", issues: [{ path: "leadName" }] });
    expect(result.stderr).toContain("2 of 3 rows valid");
    expect(proxy.requests()).toBe(0);
    expect(existsSync(`${file}.ledger.jsonl`) || existsSync(`${file}.created.csv`)).toBe(false);
    await proxy.close();
  });

  it("neutralises formula starts in rejected.csv as OWASP says: a leading single quote, and the field quoted", async () => {
    const formulas: Row = {
      leadName: '=HYPERLINK("http://evil.example","Click")',
      leadMobileNumber: "=1+2",
      referrer: "Formula Source",
      leadState: "@SUM(A1)",
      leadCity: "\tIpoh",
      leadAddress: "-2+3",
      remark: "\r+cmd",
    };
    const file = await writeCsv("formula.csv", [formulas, valid("Formula", 2)]);
    const result = await runImport(file);
    expect(result.code, result.stderr).toBe(EXIT.DATA);
    const text = await readFile(`${file}.rejected.csv`, "utf8");
    const [header, row] = parseCsv(text);
    const field = (name: string) => row[header.indexOf(name)];
    for (const name of ["leadName", "leadMobileNumber", "leadState", "leadCity", "leadAddress", "remark"]) {
      expect(field(name)).toBe(`'${formulas[name]}`);
    }
    expect(field("referrer")).toBe("Formula Source");
    expect(text).toContain(`,"'=HYPERLINK(""http://evil.example"",""Click"")",`);
    expect(text).toContain(`,"'-2+3",`);
  }, 60_000);
});
