import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { type RunningServer, startServer } from "../helpers/server";

/**
 * The typed client as an integrator outside the host takes it: `npm pack` of lib/client, installed from that tarball
 * (offline: it has no dependencies) into an empty Node project, then used against the production server.
 */
const root = path.resolve(import.meta.dirname, "../..");
const packageDir = path.join(root, "lib/client");
let db: TestDatabase;
let server: RunningServer;
let work: string;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  server = await startServer(db.url);
  work = await mkdtemp(path.join(tmpdir(), "client-package-"));
}, 120_000);

afterAll(async () => {
  await server.stop();
  await db.sql.end();
  await rm(work, { recursive: true, force: true });
  await rm(path.join(packageDir, "dist"), { recursive: true, force: true });
});

const INTEGRATOR = `
import { LeadsClient } from "@lead-intake/client";
const client = new LeadsClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.LEADS_API_KEY });
const created = await client.createLead({ leadName: "Packaged Lead", leadMobileNumber: "012-345 6100", referrer: "Package Source" });
const leads = [];
for await (const lead of client.leads({ referrer: "Package Source" })) leads.push(lead);
const first = await client.listSources();
const again = await client.listSources();
console.log(JSON.stringify({ created, leads, sources: [first.status, again.status] }));
`;

describe("the typed client as a package", () => {
  it("packs into a tarball that imports no server code, installs offline into an empty project, and creates and lists leads", async () => {
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: packageDir, encoding: "utf8" }),
    );
    const tarball = path.join(work, packed[0].filename);
    const files: string[] = packed[0].files.map((f: { path: string }) => f.path);
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files.every((f) => f === "package.json" || f.startsWith("dist/"))).toBe(true);

    const project = path.join(work, "integrator");
    await mkdir(project);
    await writeFile(
      path.join(project, "package.json"),
      JSON.stringify({ name: "integrator", private: true, type: "module" }),
    );
    execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: project, stdio: "pipe" });

    // Every import of the installed code is one of its own files or a Node.js built-in.
    const installed = path.join(project, "node_modules/@lead-intake/client/dist");
    for (const name of await readdir(installed)) {
      const text = await readFile(path.join(installed, name), "utf8");
      for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)) {
        expect(`${name}: ${specifier}`).toMatch(/: (\.\/[a-z-]+\.js|node:[a-z/_]+)$/);
      }
    }

    await writeFile(path.join(project, "integrator.mjs"), INTEGRATOR);
    const output = execFileSync(process.execPath, ["integrator.mjs"], {
      cwd: project,
      env: { ...process.env, BASE_URL: server.baseUrl, LEADS_API_KEY: TEST_KEY },
      encoding: "utf8",
    });
    const { created, leads, sources } = JSON.parse(output);
    expect(created).toMatchObject({
      outcome: "ok",
      status: 201,
      data: { lead: { leadName: "Packaged Lead", leadMobileNumber: "60123456100" } },
    });
    expect(leads.map((lead: { referralId: number }) => lead.referralId)).toEqual([created.data.lead.referralId]);
    expect(sources).toEqual([200, 304]);
  }, 180_000);
});
