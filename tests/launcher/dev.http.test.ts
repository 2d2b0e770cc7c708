import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runningPostmaster } from "@/lib/runtime/embedded-postgres.mjs";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";
import { makeClone, type Clone } from "../helpers/clone";
import { descendantsOf, listeningPid, stillRunning } from "../helpers/process-tree";
import { validLead } from "../helpers/lead";

/**
 * `npm run dev` as a contributor runs it, in a clone with files of its own: `next dev` on the embedded PostgreSQL with
 * the launcher's key set-up and sentences, and an edit to a route or a schema served by the next request.
 */
let clone: Clone;
let dev: ProcessGroup;
let baseUrl: string;
let key: string;

/** The file watcher's notice of an edit; far below any compilation. */
const WATCHER_MS = 1_000;

beforeAll(async () => {
  clone = await makeClone({ copied: true });
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  dev = await startProcessGroup(
    "npm",
    ["run", "dev"],
    {
      PORT: String(port),
      EMBEDDED_PG_PORT: String(await freePort()),
      LEADS_API_KEY: undefined,
      DATABASE_URL: undefined,
    },
    `${baseUrl}/api/health/live`,
    { cwd: clone.dir },
  );
  const deadline = Date.now() + 60_000;
  while (!dev.output().includes("Lead Intake Service ready at") && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  key = /^LEADS_API_KEY=(.+)$/m.exec(readFileSync(path.join(clone.dir, ".env.local"), "utf8"))![1];
}, 240_000);

afterAll(async () => {
  await dev?.stop();
  await clone?.remove();
}, 60_000);

const get = (route: string) => fetch(`${baseUrl}${route}`, { headers: { authorization: `Bearer ${key}` } });
const post = (body: unknown) =>
  fetch(`${baseUrl}/api/leads`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

function edit(file: string, from: string, to: string) {
  const full = path.join(clone.dir, file);
  const text = readFileSync(full, "utf8");
  expect(text).toContain(from);
  writeFileSync(full, text.replace(from, to));
}

describe("npm run dev", () => {
  it("says what npm start says: the embedded database, the generated key and how to read it, after Next's Ready", () => {
    const output = dev.output();
    expect(output).toContain("Embedded PostgreSQL running, data in .data/postgres");
    expect(runningPostmaster(path.join(clone.dir, ".data/postgres"))).not.toBeNull();
    const after = output.slice(output.indexOf("Ready in"));
    expect(after).toContain(`Lead Intake Service ready at http://localhost:${new URL(baseUrl).port}`);
    expect(after).toContain(
      "API key: a new key was generated into .env.local; read it with: KEY=$(sed -n 's/^LEADS_API_KEY=//p' .env.local)",
    );
    expect(output).not.toContain(key);
  });

  it("serves the API with the generated key, and refuses a request without it", async () => {
    expect((await get("/api/leads/sources")).status).toBe(200);
    expect((await fetch(`${baseUrl}/api/leads/sources`)).status).toBe(401);
  }, 120_000);

  it("serves an edit to a route on the next request", async () => {
    expect((await get("/api/leads/sources")).headers.get("x-edited")).toBeNull();
    edit(
      "app/api/leads/sources/route.ts",
      "{ ETag: entityTag(version) }",
      '{ ETag: entityTag(version), "X-Edited": "1" }',
    );
    await new Promise((resolve) => setTimeout(resolve, WATCHER_MS));
    const edited = await get("/api/leads/sources");
    expect(edited.status).toBe(200);
    expect(edited.headers.get("x-edited")).toBe("1");
  }, 120_000);

  it("serves an edit to a schema on the next request", async () => {
    const lead = validLead({ leadName: "Aminah Binti Ali" });
    expect((await post(lead)).status).toBe(201);
    edit(
      "lib/leads/schemas.ts",
      'leadName: text(2, 120, "The lead\'s name.")',
      'leadName: text(2, 10, "The lead\'s name.")',
    );
    await new Promise((resolve) => setTimeout(resolve, WATCHER_MS));
    const refused = await post({ ...lead, leadMobileNumber: "012-345 6790" });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      code: "INVALID_INPUT",
      issues: [expect.objectContaining({ path: "leadName" })],
    });
  }, 120_000);

  it("stops every process under npm within 10 s on SIGTERM to npm's process, as a supervisor sends it", async () => {
    const postgres = runningPostmaster(path.join(clone.dir, ".data/postgres"))!;
    const under = descendantsOf(dev.pid);
    expect(under).toContain(postgres.pid);
    process.kill(dev.pid, "SIGTERM");
    expect(await stillRunning([dev.pid, ...under], 10_000)).toEqual([]);
    expect(runningPostmaster(path.join(clone.dir, ".data/postgres"))).toBeNull();
    expect(listeningPid(Number(new URL(baseUrl).port))).toBeNull();
  }, 60_000);
});
