import { type ChildProcess, spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { CSV_COLUMNS } from "@/lib/importer/input";
import { freePort } from "@/scripts/process-group";
import { TEST_KEY } from "./api";
import { createTestDatabase, type TestDatabase } from "./db";
import { type RunningServer, startServer } from "./server";
import { validLead } from "./lead";

/**
 * What the tests of the importer (tests/importer/*.http.test.ts) share: the importer as an integrator runs it
 * (`npm run import -- FILE`, i.e. node --import tsx scripts/import.ts) against the production server and a real
 * database, including a server and an importer killed with SIGKILL mid-import.
 */
export let db: TestDatabase;
export let server: RunningServer;
export let port: number;
export let dir: string;
/** A tiny tmpfs the disk-full test mounts (the test runs as root, as CI does). */
let fullDisk: string | null = null;

export type Row = Partial<Record<string, string>>;

export const cell = (v = "") => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
export async function writeCsv(name: string, rows: Row[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(
    file,
    [CSV_COLUMNS.join(","), ...rows.map((r) => CSV_COLUMNS.map((c) => cell(r[c])).join(","))].join("\n") + "\n",
  );
  return file;
}

export const valid = (tag: string, i: number): Row =>
  validLead({
    leadName: `${tag} Lead ${i}`,
    leadMobileNumber: `01${String(20000000 + i)}`,
    referrer: `${tag} Source`,
    leadCity: i % 2 ? "Ipoh" : "",
    remark: i % 3 ? "" : `Call, "after" 6 pm ${i}`,
  });

export function startImport(
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

export const runImport = (file: string, args: string[] = [], baseUrl?: string) => startImport(file, args, baseUrl).done;

/**
 * runImport, but an importer still running after `ms` is killed (code -1): a hang fails the test instead of stalling
 * it.
 */
export function runImportWithin(ms: number, file: string, args: string[] = [], baseUrl?: string) {
  const child = startImport(file, args, baseUrl);
  const timer = setTimeout(() => child.kill("SIGKILL"), ms);
  return child.done.finally(() => clearTimeout(timer));
}

/**
 * Writes `bytes` into each FIFO once every one has a reader, then closes them all: their readers see the input complete
 * together.
 */
export async function releaseTogether(fifos: string[], bytes: Buffer): Promise<void> {
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
export const STACK_LINE = /\n\s+at /;

/** Lock file contents as the importer writes them. */
export const lockOwner = (pid: number, host = hostname()) =>
  JSON.stringify({ pid, host, startedAt: new Date().toISOString() });

/** Leads in the database by name, with their ids. */
export async function leadsNamed(prefix: string) {
  const { rows } = await db.sql.query<{ name: string; id: number; customer: string }>(
    `SELECT lead_name AS name, id, lead_customer_id AS customer FROM referrals WHERE lead_name LIKE $1 ORDER BY id`,
    [`${prefix}%`],
  );
  return rows;
}

export async function ledgerEntries(file: string): Promise<{ type: string; row?: number; reconciled?: boolean }[]> {
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
export async function rowsLeftAt(file: string, ...types: string[]): Promise<number[]> {
  const last = new Map<number, string>();
  for (const e of await ledgerEntries(file)) if (e.row !== undefined) last.set(e.row, e.type);
  return [...last].filter(([, type]) => types.includes(type)).map(([row]) => row);
}

export async function waitForCreated(file: string, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await ledgerEntries(file)).filter((e) => e.type === "created").length < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} rows created within 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function parseCsv(text: string): string[][] {
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
export async function expectOneLeadPerRow(
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
export async function droppingProxy(drop: (body: string) => boolean, listing?: (url: URL) => unknown, delayMs = 0) {
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
export function runImportIn(cwd: string, args: string[], env: Record<string, string | undefined>) {
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

/** Starts the production server again on the same port and database, after a test killed it. */
export async function restartServer() {
  server = await startServer(db.url, {}, port);
}

/** Mounts a 32 kB tmpfs for a ledger to fill, unmounted after the file's tests. */
export async function mountFullDisk(): Promise<string> {
  fullDisk = path.join(dir, "full");
  await mkdir(fullDisk);
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=32k", "tmpfs", fullDisk]);
  return fullDisk;
}

/** Starts the file's database and production server before its tests, and stops them after. */
export function setUpImporterServer() {
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
}
