import { type ChildProcess, spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { closeSync, constants, existsSync, openSync, writeSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CSV_COLUMNS } from "@/lib/importer/input";
import { EXIT, MAX_SENDS_PER_ROW } from "@/lib/importer/run";
import { freePort } from "@/scripts/process-group";
import { TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { insertPerson } from "../helpers/read-fixtures";
import { type RunningServer, startServer } from "../helpers/server";
import { validLead } from "../helpers/lead";

/**
 * The importer as an integrator runs it (`npm run import -- FILE`, i.e. node --import tsx
 * scripts/import.ts) against the production server and a real database, including
 * a server and an importer killed with SIGKILL mid-import.
 */
let db: TestDatabase;
let server: RunningServer;
let port: number;
let dir: string;
/** A tiny tmpfs the disk-full test mounts (the test runs as root, as CI does). */
let fullDisk: string | null = null;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  port = await freePort();
  server = await startServer(db.url, {}, port);
  dir = await mkdtemp(path.join(tmpdir(), "lead-import-"));
}, 120_000);

afterAll(async () => {
  if (fullDisk) execFileSync("umount", [fullDisk]);
  await server.stop();
  await db.sql.end();
  await rm(dir, { recursive: true, force: true });
});

type Row = Partial<Record<string, string>>;

const cell = (v = "") => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
async function writeCsv(name: string, rows: Row[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(
    file,
    [CSV_COLUMNS.join(","), ...rows.map((r) => CSV_COLUMNS.map((c) => cell(r[c])).join(","))].join("\n") + "\n",
  );
  return file;
}

const valid = (tag: string, i: number): Row =>
  validLead({
    leadName: `${tag} Lead ${i}`,
    leadMobileNumber: `01${String(20000000 + i)}`,
    referrer: `${tag} Source`,
    leadCity: i % 2 ? "Ipoh" : "",
    remark: i % 3 ? "" : `Call, "after" 6 pm ${i}`,
  });

function startImport(
  file: string,
  args: string[] = [],
  baseUrl = server.baseUrl,
): ChildProcess & { done: Promise<{ code: number; stdout: string; stderr: string }> } {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "scripts/import.ts", file, "--base-url", baseUrl, ...args],
    {
      env: { ...process.env, LEADS_API_KEY: TEST_KEY },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c) => (stdout += c));
  child.stderr!.on("data", (c) => (stderr += c));
  const done = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code: code ?? (signal ? -1 : 0), stdout, stderr })),
  );
  return Object.assign(child, { done });
}

const runImport = (file: string, args: string[] = [], baseUrl?: string) => startImport(file, args, baseUrl).done;

/**
 * runImport, but an importer still running after `ms` is killed (code -1): a hang fails the test instead of stalling
 * it.
 */
function runImportWithin(ms: number, file: string, args: string[] = [], baseUrl?: string) {
  const child = startImport(file, args, baseUrl);
  const timer = setTimeout(() => child.kill("SIGKILL"), ms);
  return child.done.finally(() => clearTimeout(timer));
}

/**
 * Writes `bytes` into each FIFO once every one has a reader, then closes them all: their readers see the input complete
 * together.
 */
async function releaseTogether(fifos: string[], bytes: Buffer): Promise<void> {
  const writers: number[] = [];
  for (const fifo of fifos) {
    for (;;) {
      try {
        writers.push(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)); // ENXIO until the reader has opened it
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENXIO") throw error;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  }
  for (const fd of writers) writeSync(fd, bytes);
  for (const fd of writers) closeSync(fd);
}

/** A Node.js stack trace line: no output of the importer may contain one. */
const STACK_LINE = /\n\s+at /;

/** Lock file contents as the importer writes them. */
const lockOwner = (pid: number, host = hostname()) =>
  JSON.stringify({ pid, host, startedAt: new Date().toISOString() });

/** Leads in the database by name, with their ids. */
async function leadsNamed(prefix: string) {
  const { rows } = await db.sql.query<{ name: string; id: number; customer: string }>(
    `SELECT lead_name AS name, id, lead_customer_id AS customer FROM referrals WHERE lead_name LIKE $1 ORDER BY id`,
    [`${prefix}%`],
  );
  return rows;
}

async function ledgerEntries(file: string): Promise<{ type: string; row?: number; reconciled?: boolean }[]> {
  const text = await readFile(`${file}.ledger.jsonl`, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

/** Rows whose last ledger entry is one of `types`. */
async function rowsLeftAt(file: string, ...types: string[]): Promise<number[]> {
  const last = new Map<number, string>();
  for (const e of await ledgerEntries(file)) if (e.row !== undefined) last.set(e.row, e.type);
  return [...last].filter(([, type]) => types.includes(type)).map(([row]) => row);
}

async function waitForCreated(file: string, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await ledgerEntries(file)).filter((e) => e.type === "created").length < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} rows created within 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let value = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        value += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else value += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(value);
      value = "";
    } else if (ch === "\n") {
      row.push(value);
      rows.push(row);
      row = [];
      value = "";
    } else value += ch;
  }
  return rows;
}

/** Expects exactly one lead in the database per given name, and created.csv listing exactly those, in input order. */
async function expectOneLeadPerRow(
  file: string,
  tag: string,
  rows: Row[],
  created = `${file}.created.csv`,
): Promise<void> {
  const stored = await leadsNamed(`${tag} Lead `);
  const byName = new Map(stored.map((s) => [s.name, s]));
  expect(stored.map((s) => s.name).sort()).toEqual(rows.map((r) => r.leadName).sort());
  const expected = [
    "row,referralId,leadCustomerId",
    ...rows.map((r, i) => `${i + 1},${byName.get(r.leadName!)!.id},${byName.get(r.leadName!)!.customer}`),
  ];
  expect(await readFile(created, "utf8")).toBe(`${expected.join("\n")}\n`);
}

/**
 * A proxy in front of the server that can drop a request's connection after the server answered it,
 * and, given `listing`, answers GET /api/leads itself with 200 and that body; each POST waits `delayMs` first.
 */
async function droppingProxy(drop: (body: string) => boolean, listing?: (url: URL) => unknown, delayMs = 0) {
  const posts: string[] = [];
  let requests = 0;
  const proxy: Server = createServer(async (req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    if (req.method === "POST") posts.push(body);
    if (req.method === "POST") await new Promise((r) => setTimeout(r, delayMs));
    const url = new URL(req.url!, server.baseUrl);
    if (listing && req.method === "GET" && url.pathname === "/api/leads") {
      return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(listing(url)));
    }
    const upstream = await fetch(new URL(req.url!, server.baseUrl), {
      method: req.method,
      headers: { authorization: req.headers.authorization ?? "", "content-type": req.headers["content-type"] ?? "" },
      body: req.method === "POST" ? body : undefined,
    });
    const text = await upstream.text(); // the server has answered: a POST is committed
    if (req.method === "POST" && drop(body)) return req.socket.destroy();
    res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    posts,
    requests: () => requests,
    close: () => {
      proxy.closeAllConnections();
      return new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

/** The importer run from `cwd` as `npm run import` would be there: tsx and the project's paths found from anywhere. */
function runImportIn(cwd: string, args: string[], env: Record<string, string | undefined>) {
  const root = path.resolve(import.meta.dirname, "../..");
  const child = spawn(
    process.execPath,
    ["--import", import.meta.resolve("tsx"), path.join(root, "scripts/import.ts"), ...args],
    {
      cwd,
      env: {
        ...process.env,
        LEADS_API_KEY: undefined,
        PORT: undefined,
        TSX_TSCONFIG_PATH: path.join(root, "tsconfig.json"),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr!.on("data", (c) => (stderr += c));
  child.stdout!.resume();
  return new Promise<{ code: number; stderr: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code: code ?? -1, stderr })),
  );
}

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

    server = await startServer(db.url, {}, port);
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

  it("ends in one sentence when the ledger's disk is full, then resumes to exactly one lead per row", async () => {
    fullDisk = path.join(dir, "full");
    await mkdir(fullDisk);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=32k", "tmpfs", fullDisk]);
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
