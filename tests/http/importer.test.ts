import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CSV_COLUMNS } from "@/lib/importer/input";
import { EXIT } from "@/lib/importer/run";
import { freePort } from "@/scripts/process-group";
import { TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { insertPerson } from "../helpers/read-fixtures";
import { type RunningServer, startServer } from "../helpers/server";

/**
 * The importer as an integrator runs it (`npm run import -- FILE`, i.e. tsx
 * scripts/import.ts) against the production server and a real database, including
 * a server and an importer killed with SIGKILL mid-import.
 */
let db: TestDatabase;
let server: RunningServer;
let port: number;
let dir: string;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  port = await freePort();
  server = await startServer(db.url, {}, port);
  dir = await mkdtemp(path.join(tmpdir(), "lead-import-"));
}, 120_000);

afterAll(async () => {
  await server.stop();
  await db.sql.end();
  await rm(dir, { recursive: true, force: true });
});

type Row = Partial<Record<string, string>>;

const cell = (v = "") => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
async function writeCsv(name: string, rows: Row[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, [CSV_COLUMNS.join(","), ...rows.map((r) => CSV_COLUMNS.map((c) => cell(r[c])).join(","))].join("\n") + "\n");
  return file;
}

const valid = (tag: string, i: number): Row => ({
  leadName: `${tag} Lead ${i}`,
  leadMobileNumber: `01${String(20000000 + i)}`,
  referrer: `${tag} Source`,
  leadCity: i % 2 ? "Ipoh" : "",
  remark: i % 3 ? "" : `Call, "after" 6 pm ${i}`,
});

function startImport(file: string, args: string[] = [], baseUrl = server.baseUrl): ChildProcess & { done: Promise<{ code: number; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/import.ts", file, "--base-url", baseUrl, ...args], {
    env: { ...process.env, LEADS_API_KEY: TEST_KEY },
    stdio: ["ignore", "pipe", "pipe"],
  });
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
  return text.split("\n").filter((l) => l.trim()).flatMap((l) => {
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
      if (ch === '"' && text[i + 1] === '"') (value += '"'), i++;
      else if (ch === '"') quoted = false;
      else value += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") row.push(value), (value = "");
    else if (ch === "\n") row.push(value), rows.push(row), (row = []), (value = "");
    else value += ch;
  }
  return rows;
}

/** Expects exactly one lead in the database per given name, and created.csv listing exactly those, in input order. */
async function expectOneLeadPerRow(file: string, tag: string, rows: Row[]): Promise<void> {
  const stored = await leadsNamed(`${tag} Lead `);
  const byName = new Map(stored.map((s) => [s.name, s]));
  expect(stored.map((s) => s.name).sort()).toEqual(rows.map((r) => r.leadName).sort());
  const expected = ["row,referralId,leadCustomerId", ...rows.map((r, i) => `${i + 1},${byName.get(r.leadName!)!.id},${byName.get(r.leadName!)!.customer}`)];
  expect(await readFile(`${file}.created.csv`, "utf8")).toBe(`${expected.join("\n")}\n`);
}

/** A proxy in front of the server that can drop a request's connection after the server answered it. */
async function droppingProxy(drop: (body: string) => boolean) {
  const posts: string[] = [];
  let requests = 0;
  const proxy: Server = createServer(async (req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    if (req.method === "POST") posts.push(body);
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
        invalid.set(i, [
          { status: "400", code: "INVALID_INPUT", path: "leadMobileNumber" },
          { status: "400", code: "INVALID_INPUT", path: "relationship" },
          { status: "422", code: "INVALID_AGENT", path: "" },
          { status: "", code: "INVALID_ROW", path: "" },
        ][kind]);
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
    const createdLines = rows.flatMap((r, i) => (invalid.has(i + 1) ? [] : [`${i + 1},${byName.get(r.leadName!)!.id},${byName.get(r.leadName!)!.customer}`]));
    expect(await readFile(`${file}.created.csv`, "utf8")).toBe(`row,referralId,leadCustomerId\n${createdLines.join("\n")}\n`);

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
    const events = result.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(events.find((e) => e.row === 3 && e.event === "row")).toMatchObject({ result: "uncertain", reason: "connection" });
    expect(events.find((e) => e.row === 3 && e.event === "reconciled")).toMatchObject({ result: "created" });
    expect((await ledgerEntries(file)).filter((e) => e.row === 3).map((e) => e.type)).toEqual(["intent", "uncertain", "created"]);
    await expectOneLeadPerRow(file, "Dropped", rows);
    await proxy.close();

    // A running import holds the ledger's lock; the ledger belongs to this input: a changed file is refused.
    await writeFile(`${file}.ledger.jsonl.lock`, JSON.stringify({ host: hostname(), pid: process.pid }));
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
    const rows: Row[] = [valid("Person", 1), { ...valid("Person", 2), referrer: undefined, referrerCustomerId: personId }];
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
    expect(result.stdout.trim().split("\n").map((l) => JSON.parse(l))[0]).toMatchObject({ event: "row", row: 2, result: "invalid", issues: [{ path: "leadName" }] });
    expect(result.stderr).toContain("2 of 3 rows valid");
    expect(proxy.requests()).toBe(0);
    expect(existsSync(`${file}.ledger.jsonl`) || existsSync(`${file}.created.csv`)).toBe(false);
    await proxy.close();
  });
});
