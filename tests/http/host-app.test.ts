import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIN_KEY_LENGTH, unusableKeyProblem } from "@/lib/api/api-key.mjs";
import { settingsProblem } from "@/lib/settings.mjs";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { MODULE_FILES, moduleFiles, PRELOAD, STATE_FILE } from "@/scripts/host/manifest";
import type { ProcessGroup } from "@/scripts/process-group";
import { call, TEST_KEY } from "../helpers/api";
import type { TestDatabase } from "../helpers/db";
import { mustRun, ROOT, run, startHost, tree } from "../helpers/host-app";
import { createEmptyDatabase } from "../helpers/host-install";

/**
 * The module put into a host app as the host guide says: a copy of tests/fixtures/host-app (create-next-app@16 with
 * its defaults: cacheComponents, TypeScript target ES2017, Tailwind; plus the CRM's own Prisma schema with columns of
 * its own, its client generated into app/generated/prisma, its own migration and its own /referrals page) gets
 * `npm run host:install`, then npm install, prisma generate, npm run build and `next start` with the preload, on an
 * empty database: the module's API, /docs and the host's own page are served by the host's one server.
 */
const FIXTURE = path.join(ROOT, "tests/fixtures/host-app");
/** The files the install edits in place; every other change is a file of the manifest or the install's record. */
const EDITED = ["next.config.ts", "package.json", "prisma/schema.prisma"];

let parent: string;
let host: string;
let db: TestDatabase;
let server: ProcessGroup;
let baseUrl: string;
let installOutput: string;
let before: Map<string, string>;
let afterInstall: Map<string, string>;

const install = () => mustRun("npm", ["run", "--silent", "host:install", "--", host], ROOT);

const startHostApp = (env: Record<string, string | undefined>) =>
  startHost(host, { NODE_OPTIONS: PRELOAD.replace("NODE_OPTIONS=", ""), DATABASE_URL: db.url, ...env });

beforeAll(async () => {
  parent = mkdtempSync(path.join(tmpdir(), "lead-intake-host-"));
  host = path.join(parent, "host-app");
  cpSync(FIXTURE, host, { recursive: true });
  before = tree(host, ["app/generated"]);
  installOutput = install();
  afterInstall = tree(host, ["app/generated"]);
  mustRun("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], host);
  // The schema engine is not needed to generate; its download is not possible here (package.json's db:generate).
  mustRun("npx", ["prisma", "generate"], host, { PRISMA_SCHEMA_ENGINE_BINARY: "package.json" });
  mustRun("npm", ["run", "build"], host);
  db = await createEmptyDatabase();
  ({ group: server, url: baseUrl } = await startHostApp({ LEADS_API_KEY: TEST_KEY }));
}, 900_000);

afterAll(async () => {
  await server?.stop();
  await db?.sql.end();
  if (parent) rmSync(parent, { recursive: true, force: true });
});

describe("npm run host:install into a create-next-app@16 host", () => {
  it("adds the manifest's files, edits only package.json, next.config.ts and the schema, says what is left", () => {
    const after = afterInstall;
    const added = [...after.keys()].filter((f) => !before.has(f)).sort();
    const changed = [...before.keys()].filter((f) => after.has(f) && after.get(f) !== before.get(f)).sort();
    const generated = MODULE_FILES.filter((entry) => entry.generated).flatMap((entry) => entry.paths);
    const expected = [...moduleFiles(ROOT), ...generated, STATE_FILE].filter((f) => !before.has(f));
    expect(added).toEqual(expected.sort());
    expect(changed).toEqual(EDITED);
    expect(installOutput).toContain(`3. Start with the preload: ${PRELOAD} next start`);
    const packageJson = JSON.parse(readFileSync(path.join(host, "package.json"), "utf8"));
    const lock = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8"));
    for (const name of ["zod", "pg", "@prisma/driver-adapter-utils", "@vercel/otel", "@opentelemetry/sdk-trace-base"]) {
      expect({ name, version: packageJson.dependencies[name] }).toEqual({
        name,
        version: lock.packages[`node_modules/${name}`].version,
      });
    }
    expect(packageJson.scripts.build).toBe("tsx scripts/build-openapi.ts && next build");
    expect(readFileSync(path.join(host, "next.config.ts"), "utf8")).toContain(
      'serverExternalPackages: ["pg", "@prisma/adapter-pg"]',
    );
  });

  it("serves the module's operations through the host's server, on host tables with columns of their own", async () => {
    const lead = { leadName: "Host Guest Lead", leadMobileNumber: "012-345 6789", referrer: "Host Roadshow" };
    const created = await call("POST", "/api/leads", { baseUrl, body: lead });
    expect(created.status).toBe(201);
    const listed = await call("GET", `/api/leads?referrer=${created.body.lead.referrer.customerId}`, { baseUrl });
    expect(listed.status).toBe(200);
    expect(listed.body.leads.map((l: { leadName: string }) => l.leadName)).toEqual([lead.leadName]);
    const sources = await call("GET", "/api/leads/sources", { baseUrl });
    expect(sources.body.sources.map((s: { name: string }) => s.name)).toContain("Host Roadshow");
    const agents = await call("GET", "/api/leads/agents", { baseUrl });
    expect(agents.body.agents.map((a: { name: string }) => a.name)).toEqual(["Siti Sales"]);
    // The host's own column took its default on the module's insert.
    const { rows } = await db.sql.query("SELECT loyalty_tier FROM customers WHERE id = $1", [
      created.body.lead.leadCustomerId,
    ]);
    expect(rows).toEqual([{ loyalty_tier: "none" }]);
  });

  it("serves /docs and the module's own document", async () => {
    const docs = await fetch(`${baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("Lead Intake API documentation");
    const document = await fetch(`${baseUrl}/openapi.json`);
    expect(await document.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it("shows the module's leads on the host's own page, read through the host's own Prisma client", async () => {
    await call("POST", "/api/leads", {
      baseUrl,
      body: { leadName: "Shown On Host Page", leadMobileNumber: "0198887777", referrer: "Facebook Ads" },
    });
    const page = await fetch(`${baseUrl}/referrals`);
    expect(page.status).toBe(200);
    expect((await page.text()).replaceAll("<!-- -->", "")).toContain("Shown On Host Page (Pending) from Facebook Ads");
  });

  it("host:check: one line each, exit 0 on the host; 1 with a short key or a column lead creation misses", async () => {
    const ok = run("npm", ["run", "--silent", "host:check"], host, {
      DATABASE_URL: db.url,
      LEADS_API_KEY: TEST_KEY,
      NODE_OPTIONS: undefined,
    });
    expect({ status: ok.status, output: ok.output }).toEqual({ status: 0, output: expect.any(String) });
    const lines = ok.output.trim().split("\n");
    expect(lines.map((l) => l.split(":")[0])).toEqual([
      "ok   key",
      "ok   settings",
      "note preload",
      "ok   database",
      "ok   columns",
      "ok   tables",
      "ok   layout",
      "ok   migrations",
      "ok   triggers",
    ]);
    expect(lines).toContain("ok   layout: normal (users.access_levels and referrals.assigned_agent_id present)");
    expect(lines).toContain(`ok   key: ${TEST_KEY.length} characters (at least ${MIN_KEY_LENGTH})`);
    const short = { LEADS_API_KEY: "k".repeat(MIN_KEY_LENGTH - 1) };
    const failed = run("npm", ["run", "--silent", "host:check"], host, { DATABASE_URL: db.url, ...short });
    expect(failed.status).toBe(1);
    expect(failed.output.split("\n")).toContain(`FAIL key: ${unusableKeyProblem(short)}`);
    const unreadable = { LEADS_RATE_LIMIT_CREATE: "lots" };
    const refused = run("npm", ["run", "--silent", "host:check"], host, {
      DATABASE_URL: db.url,
      LEADS_API_KEY: TEST_KEY,
      ...unreadable,
    });
    expect(refused.status).toBe(1);
    expect(refused.output.split("\n")).toContain(`FAIL settings: ${settingsProblem(unreadable)}`);
    // A host column of its own that the module's inserts would leave without a value.
    await db.sql.query("ALTER TABLE referrals ADD COLUMN host_required text NOT NULL DEFAULT ''");
    await db.sql.query("ALTER TABLE referrals ALTER COLUMN host_required DROP DEFAULT");
    try {
      const blocked = run("npm", ["run", "--silent", "host:check"], host, {
        DATABASE_URL: db.url,
        LEADS_API_KEY: TEST_KEY,
      });
      expect(blocked.status).toBe(1);
      expect(blocked.output.split("\n")).toContain(
        "FAIL host columns without a default, which lead creation does not fill: referrals.host_required",
      );
    } finally {
      await db.sql.query("ALTER TABLE referrals DROP COLUMN host_required");
    }
  }, 120_000);

  it("with a short key: the host's page answers 200, the data operations 503, said once at start", async () => {
    const short = { LEADS_API_KEY: "k".repeat(MIN_KEY_LENGTH - 1) };
    const { group, url } = await startHostApp(short);
    try {
      expect((await fetch(`${url}/referrals`)).status).toBe(200);
      const res = await call("GET", "/api/leads", { baseUrl: url });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: "API_NOT_CONFIGURED" });
      const lines = group
        .output()
        .split("\n")
        .filter((line) => line.includes("LEADS_API_KEY"));
      expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
        { time: expect.any(String), level: "error", msg: unusableKeyProblem(short) },
      ]);
    } finally {
      await group.stop();
    }
  }, 120_000);

  it("run again with a newer module: updates the files the host left alone, names and keeps the ones it edited", () => {
    const state = JSON.parse(readFileSync(path.join(host, STATE_FILE), "utf8"));
    // As an older module left them: one file the host never touched, one the host then edited.
    const untouched = "lib/leads/text.ts";
    const edited = "lib/leads/sources/default-sources.json";
    writeFileSync(path.join(host, untouched), "// an older version\n");
    state.files[untouched] = createHash("sha256").update("// an older version\n").digest("hex");
    writeFileSync(path.join(host, STATE_FILE), JSON.stringify(state));
    writeFileSync(path.join(host, edited), '[{ "name": "Host Own Source", "type": "other" }]\n');
    const output = install();
    expect(readFileSync(path.join(host, untouched))).toEqual(readFileSync(path.join(ROOT, untouched)));
    expect(readFileSync(path.join(host, edited), "utf8")).toBe('[{ "name": "Host Own Source", "type": "other" }]\n');
    expect(output).toContain("- files: 0 added, 1 updated,");
    expect(output).toContain(`- kept, edited by the host (compare with the module's): ${edited}`);
    expect(output).toContain("- prisma/schema.prisma: already has the module's models");
  }, 120_000);
});
