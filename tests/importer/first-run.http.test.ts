import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "@/lib/importer/run";
import { freePort } from "@/scripts/process-group";
import { TEST_KEY } from "../helpers/api";
import {
  server,
  port,
  dir,
  writeCsv,
  valid,
  runImport,
  STACK_LINE,
  leadsNamed,
  expectOneLeadPerRow,
  runImportIn,
  setUpImporterServer,
} from "../helpers/importer-run";

setUpImporterServer();

describe("importer: the first run of an integrator", () => {
  it("finds the key in .env.local of the current folder (the environment winning) and the server at PORT", async () => {
    const folder = await mkdtemp(path.join(dir, "clone-"));
    await writeFile(path.join(folder, ".env.local"), `LEADS_API_KEY=${TEST_KEY}\n`, { mode: 0o600 });
    const rows = [valid("EnvLocal", 1), valid("EnvLocal", 2)];
    const file = await writeCsv("env-local.csv", rows);

    // No --base-url, no key in the environment: both as the server reads them.
    const found = await runImportIn(folder, [file], { PORT: String(port) });
    expect(found.code, found.stderr).toBe(EXIT.OK);
    await expectOneLeadPerRow(file, "EnvLocal", rows);

    // A key set in the environment wins over .env.local, as it does for the server.
    const other = await writeCsv("env-wins.csv", [valid("EnvWins", 1)]);
    const refused = await runImportIn(folder, [other], {
      PORT: String(port),
      LEADS_API_KEY: `${TEST_KEY}-not-this-one`,
    });
    expect(refused.code, refused.stderr).toBe(EXIT.NOPERM);
    expect(await leadsNamed("EnvWins Lead ")).toHaveLength(0);

    // Without either, one sentence says where the key is looked for.
    const empty = await mkdtemp(path.join(dir, "empty-"));
    const none = await runImportIn(empty, [other], { PORT: String(port) });
    expect(none.code).toBe(EXIT.USAGE);
    expect(none.stderr.split("\n")[0]).toBe(
      "No key: set LEADS_API_KEY to the service's key, or run from the folder whose .env.local holds it (npm start writes it there).",
    );
  }, 120_000);

  it("names the URL and the cause in one sentence when the server is unreachable", async () => {
    const closed = await freePort();
    const file = await writeCsv("unreachable.csv", [valid("Unreachable", 1)]);
    const folder = await mkdtemp(path.join(dir, "unreachable-"));
    for (const [args, url] of [
      [[], `http://localhost:${closed}`],
      [["--base-url", `http://127.0.0.1:${closed}`], `http://127.0.0.1:${closed}`],
    ] as const) {
      const result = await runImportIn(folder, [file, ...args], { PORT: String(closed), LEADS_API_KEY: TEST_KEY });
      expect(result.code, result.stderr).toBe(EXIT.UNAVAILABLE);
      const last = result.stderr.trim().split("\n").at(-1);
      expect(last).toBe(
        `The server at ${url} is unreachable (Connection failed (ECONNREFUSED)): start it, or give --base-url, then run the same command again once it answers.`,
      );
      expect(result.stderr).not.toMatch(STACK_LINE);
    }
  }, 60_000);

  it("writes the results beside the ledger and never loses what an earlier run wrote", async () => {
    const rows = [valid("Kept", 1), valid("Kept", 2)];
    const file = await writeCsv("kept.csv", rows);
    const first = await runImport(file);
    expect(first.code, first.stderr).toBe(EXIT.OK);
    await expectOneLeadPerRow(file, "Kept", rows);
    const created = await readFile(`${file}.created.csv`, "utf8");

    // Another ledger and a wrong key: that run's results go beside its own ledger; the first run's stay as they were.
    await mkdir(path.join(dir, "elsewhere"));
    const ledger = path.join(dir, "elsewhere", "second.ledger.jsonl");
    const wrongKey = await new Promise<{ code: number; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "scripts/import.ts", file, "--base-url", server.baseUrl, "--ledger", ledger],
        {
          env: { ...process.env, LEADS_API_KEY: `${TEST_KEY}-wrong` },
          stdio: ["ignore", "ignore", "pipe"],
        },
      );
      let stderr = "";
      child.stderr!.on("data", (c) => (stderr += c));
      child.on("exit", (code) => resolve({ code: code ?? -1, stderr }));
    });
    expect(wrongKey.code, wrongKey.stderr).toBe(EXIT.NOPERM);
    expect(await readFile(`${file}.created.csv`, "utf8")).toBe(created);
    expect(await readFile(path.join(dir, "elsewhere", "second.created.csv"), "utf8")).toBe(
      "row,referralId,leadCustomerId\n",
    );
    expect(existsSync(path.join(dir, "elsewhere", "second.rejected.csv"))).toBe(true);

    // A results file holding rows its ledger does not (another import's) is refused before anything is sent, unchanged.
    const foreign = "row,referralId,leadCustomerId\n1,999999,cus_someone\n";
    const ledger3 = path.join(dir, "elsewhere", "third.ledger.jsonl");
    await writeFile(path.join(dir, "elsewhere", "third.created.csv"), foreign);
    const third = await runImport(file, ["--ledger", ledger3]);
    expect(third.code, third.stderr).toBe(EXIT.USAGE);
    expect(third.stderr).toBe(
      `${path.join(dir, "elsewhere", "third.created.csv")} holds rows that the ledger ${ledger3} does not (another import wrote it): move it away or give another --ledger, then run again.\n`,
    );
    expect(await readFile(path.join(dir, "elsewhere", "third.created.csv"), "utf8")).toBe(foreign);
    expect(await leadsNamed("Kept Lead ")).toHaveLength(rows.length);

    // The same ledger again: its results are rewritten with every line they had.
    const again = await runImport(file);
    expect(again.code, again.stderr).toBe(EXIT.OK);
    expect(await readFile(`${file}.created.csv`, "utf8")).toBe(created);
  }, 120_000);
});
