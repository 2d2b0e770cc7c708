import { createHash, randomBytes } from "node:crypto";
import { readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIN_KEY_LENGTH, unusableKeyProblem } from "@/lib/api/api-key.mjs";
import { settingsProblem } from "@/lib/settings.mjs";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { MODULE_FILES, moduleFiles, PRELOAD_FILE, STATE_FILE } from "@/scripts/host/manifest";
import type { ProcessGroup } from "@/scripts/process-group";
import { call, TEST_KEY } from "../helpers/api";
import type { TestDatabase } from "../helpers/db";
import {
  checks,
  expectDocsServed,
  FIXTURES,
  type HostInstall,
  installIntoHostApp,
  MACHINE,
  mustRun,
  printedSteps,
  problems,
  referralsPage,
  ROOT,
  run,
  tree,
  uninstallWithStep,
} from "../helpers/host-app";

/**
 * The module put into a host app as the host guide says: a copy of tests/fixtures/host-app (create-next-app@16 with
 * its defaults: cacheComponents, TypeScript target ES2017, Tailwind; plus the CRM's own Prisma schema with columns of
 * its own, its client generated into app/generated/prisma, its own migration and its own /referrals page), applied
 * as the host applies it, gets `npm run host:install`, then exactly the steps the install prints (install, generate,
 * build, the host's own `npm start`, host:check), on the host's database: the module's API, /docs and the host's own
 * page are served by the host's one server, and the host's lint, typecheck, build and page come out as they went in.
 *
 * Each variant is the base fixture with the files of an overlay folder on top: tests/fixtures/host-app-lean adds a
 * migration of the host's that leaves referrals with only the columns the module writes and users without
 * created_at, and its schema without their fields.
 */
/** The files the install edits in place; every other change is a file of the manifest or the install's record. */
const EDITED = ["next.config.ts", "package.json", "prisma/schema.prisma"];

const VARIANTS = [
  { name: "create-next-app@16 with columns of its own", overlay: undefined, preferredAgentColumn: true },
  { name: "referrals with only the module's columns", overlay: "host-app-lean", preferredAgentColumn: false },
] as const;

describe.each(VARIANTS)("npm run host:install into a host app: $name", (variant) => {
  let installed: HostInstall;
  let host: string;
  let db: TestDatabase;
  let server: ProcessGroup;
  let baseUrl: string;
  let installOutput: string;
  let before: Map<string, string>;
  let afterInstall: Map<string, string>;
  let checksBefore: ReturnType<typeof checks>;
  let buildBefore: string[];
  let buildAfter: string[];
  let pageBefore: Awaited<ReturnType<typeof referralsPage>>;

  const startHostApp = (env: Record<string, string | undefined>) => installed.start(env);
  const install = () => mustRun("npm", ["run", "--silent", "host:install", "--", host], ROOT);
  const settings = () => ({ ...MACHINE, DATABASE_URL: db.url, LEADS_API_KEY: TEST_KEY });

  beforeAll(async () => {
    installed = await installIntoHostApp(variant.overlay);
    ({
      app: host,
      db,
      server,
      baseUrl,
      installOutput,
      before,
      afterInstall,
      checksBefore,
      buildBefore,
      buildAfter,
    } = installed);
    pageBefore = installed.pageBefore;
  }, 1_800_000);

  afterAll(async () => {
    await installed?.stop();
  });

  it("adds the manifest's files, edits only package.json, next.config.ts and the schema, prints runnable steps", () => {
    const after = afterInstall;
    const added = [...after.keys()].filter((f) => !before.has(f)).sort();
    const changed = [...before.keys()].filter((f) => after.has(f) && after.get(f) !== before.get(f)).sort();
    const generated = MODULE_FILES.filter((entry) => entry.generated).flatMap((entry) => entry.paths);
    const expected = [...moduleFiles(ROOT), ...generated, STATE_FILE].filter((f) => !before.has(f));
    expect(added).toEqual(expected.sort());
    expect(changed).toEqual(EDITED);
    expect(printedSteps(installOutput)).toEqual([
      "npm install && npx prisma generate",
      expect.stringMatching(/^Set LEADS_API_KEY \(at least 32 characters/),
      "npm run build",
      "npm start",
      "npm run host:check",
    ]);
    const packageJson = JSON.parse(readFileSync(path.join(host, "package.json"), "utf8"));
    const lock = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8"));
    for (const name of ["zod", "pg", "@prisma/driver-adapter-utils", "@vercel/otel", "@opentelemetry/sdk-trace-base"]) {
      expect({ name, version: packageJson.dependencies[name] }).toEqual({
        name,
        version: lock.packages[`node_modules/${name}`].version,
      });
    }
    expect(packageJson.scripts.start).toBe(`NODE_OPTIONS="$NODE_OPTIONS --import=./${PRELOAD_FILE}" next start`);
    expect(installOutput).toContain(`start runs next start with the preload`);
    expect(readFileSync(path.join(host, "next.config.ts"), "utf8")).toContain(
      'serverExternalPackages: ["pg", "@prisma/adapter-pg"]',
    );
  });

  it("adds to the host's schema only fields whose columns the database has, keeping every line of the host's", () => {
    const fixtureSchema = readFileSync(path.join(FIXTURES, variant.overlay ?? "host-app", "prisma/schema.prisma"));
    const schema = readFileSync(path.join(host, "prisma/schema.prisma"), "utf8");
    const hostLines = fixtureSchema.toString("utf8").replace(/\n$/, "").split("\n");
    let next = 0;
    for (const line of schema.split("\n")) if (line === hostLines[next]) next++;
    expect(hostLines.slice(next)).toEqual([]);
    expect(schema.includes("preferredAgentId")).toBe(variant.preferredAgentColumn);
    expect(installOutput).not.toContain("Referral.preferredAgentId");
  });

  it("leaves the host's lint, typecheck and build as they were, and its /referrals page", async () => {
    expect(checks(host, settings())).toEqual(checksBefore);
    expect(buildAfter).toEqual(buildBefore);
    // Before any lead is created: the same status and content as before the install.
    expect(pageBefore.status).toBe(200);
    expect(await referralsPage(baseUrl)).toEqual(pageBefore);
  }, 300_000);

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
    expect((await call("GET", "/api/health/ready", { baseUrl, key: null })).body).toEqual({ status: "ok" });
  });

  it("serves /docs and the module's own document", async () => {
    await expectDocsServed(baseUrl);
    const document = await fetch(`${baseUrl}/openapi.json`);
    expect(await document.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  }, 120_000);

  it("shows the module's leads on the host's own page, read through the host's own Prisma client", async () => {
    await call("POST", "/api/leads", {
      baseUrl,
      body: { leadName: "Shown On Host Page", leadMobileNumber: "0198887777", referrer: "Facebook Ads" },
    });
    const page = await referralsPage(baseUrl);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Shown On Host Page (Pending) from Facebook Ads");
    const listed = await call("GET", "/api/leads", { baseUrl });
    expect(listed.body.leads.map((l: { leadName: string }) => l.leadName)).toContain("Shown On Host Page");
  });

  it("host:check: one line each, exit 0 on the host; 1 with a short key or a column lead creation misses", async () => {
    const ok = run("npm", ["run", "--silent", "host:check"], host, {
      DATABASE_URL: db.url,
      LEADS_API_KEY: TEST_KEY,
      LEADS_HOST_URL: baseUrl,
      NODE_OPTIONS: undefined,
    });
    expect({ status: ok.status, output: ok.output }).toEqual({ status: 0, output: expect.any(String) });
    const lines = ok.output.trim().split("\n");
    expect(lines.map((l) => l.split(":")[0])).toEqual([
      "ok   key",
      "ok   settings",
      "ok   preload",
      "ok   gate",
      "ok   database",
      "ok   names",
      "ok   columns",
      "ok   schema",
      "ok   tables",
      "ok   layout",
      "ok   migrations",
      "ok   grants for start-up",
      "ok   grants for creating leads",
      "ok   grants for listing",
      "ok   grants for rate limits",
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
    // A role with only SELECT and INSERT, under a creation limit: the limit cannot be counted.
    const role = `host_check_${randomBytes(4).toString("hex")}`;
    await db.sql.query(`CREATE ROLE ${role} LOGIN PASSWORD 'check';
      GRANT USAGE ON SCHEMA public TO ${role};
      GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO ${role};
      GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
    const asRole = {
      DATABASE_URL: db.url.replace(/\/\/[^@]*@/, `//${role}:check@`),
      LEADS_API_KEY: TEST_KEY,
      LEADS_HOST_URL: baseUrl,
    };
    const unlimited = run("npm", ["run", "--silent", "host:check"], host, asRole);
    expect(unlimited.output.split("\n")).toContain(
      "note grants for rate limits: the role lacks UPDATE on lead_rate_limit_counts " +
        "(needed only when LEADS_RATE_LIMIT_CREATE or LEADS_RATE_LIMIT_READ is set)",
    );
    expect(unlimited.status).toBe(0);
    const limited = run("npm", ["run", "--silent", "host:check"], host, {
      ...asRole,
      LEADS_RATE_LIMIT_CREATE: "3/min",
    });
    expect(limited.status).toBe(1);
    expect(limited.output.split("\n")).toContain(
      "FAIL grants for rate limits: the role lacks UPDATE on lead_rate_limit_counts, " +
        "so the configured rate limit cannot be counted",
    );
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

  it("host:check: a FAIL with the fix for a schema field without its column, and one naming a missing file", () => {
    const env = { DATABASE_URL: db.url, LEADS_API_KEY: TEST_KEY };
    const schemaFile = path.join(host, "prisma/schema.prisma");
    const schema = readFileSync(schemaFile, "utf8");
    writeFileSync(
      schemaFile,
      schema.replace('  @@map("users")', '  nickname String? @map("nick")\n\n  @@map("users")'),
    );
    const route = path.join(host, "app/api/leads/route.ts");
    const routeText = readFileSync(route);
    unlinkSync(route);
    try {
      const failed = run("npm", ["run", "--silent", "host:check"], host, env);
      expect(failed.status).toBe(1);
      expect(failed.output.split("\n")).toEqual(
        expect.arrayContaining([
          "FAIL install: missing app/api/leads/route.ts; run npm run host:install again to put them back",
          "FAIL schema: User.nickname has no column users.nick: remove the field from prisma/schema.prisma and run " +
            "npx prisma generate, or add the column with a migration of the host's",
        ]),
      );
    } finally {
      writeFileSync(schemaFile, schema);
      writeFileSync(route, routeText);
    }
  });

  it("with a short key: the host's page answers 200, the data operations and readiness 503, said once at start", async () => {
    const short = { LEADS_API_KEY: "k".repeat(MIN_KEY_LENGTH - 1) };
    const { group, url } = await startHostApp(short);
    try {
      expect((await fetch(`${url}/referrals`)).status).toBe(200);
      const res = await call("GET", "/api/leads", { baseUrl: url });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: "API_NOT_CONFIGURED" });
      const ready = await call("GET", "/api/health/ready", { baseUrl: url, key: null });
      expect({ status: ready.status, body: ready.body }).toEqual({
        status: 503,
        body: { status: "unavailable", reason: "not-configured" },
      });
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

  it("run again after the host removed a field the install added: refuses, says why, changes nothing", () => {
    const schemaFile = path.join(host, "prisma/schema.prisma");
    const schema = readFileSync(schemaFile, "utf8");
    writeFileSync(schemaFile, schema.replace(/^ {2}remark .*\n/m, ""));
    const files = tree(host);
    try {
      const refused = run("npm", ["run", "--silent", "host:install", "--", host], ROOT);
      expect(refused.status).toBe(1);
      expect(tree(host)).toEqual(files);
      expect(refused.output).toContain(
        "Referral.remark (column referrals.remark), which an earlier install added, was removed from the host's schema",
      );
    } finally {
      writeFileSync(schemaFile, schema);
    }
  }, 120_000);

  it("host:uninstall --yes: the host's files, lint, typecheck and build are again those from before the install", async () => {
    await server.stop();
    // The step it prints: the lockfile back to the host's packages, and the host's client.
    const output = uninstallWithStep(host, db.url, MACHINE);
    expect(printedSteps(output)).toEqual(["npm install && npx prisma generate"]);
    // The test before this one left the host's own edit of a module file: named and kept.
    const edited = "lib/leads/sources/default-sources.json";
    expect(output).toContain(`- kept, edited by the host: ${edited}`);
    rmSync(path.join(host, edited));
    // tree() leaves out tsc's incremental cache (create-next-app ignores *.tsbuildinfo), rewritten by every typecheck.
    expect(tree(host)).toEqual(before);
    // Built again first, as before the install: the host's typecheck reads the route types (LayoutProps) the build
    // writes, and the last build's types still name the module's routes.
    rmSync(path.join(host, ".next"), { recursive: true, force: true });
    expect(problems(mustRun("npm", ["run", "build"], host, MACHINE))).toEqual(buildBefore);
    expect(checks(host, MACHINE)).toEqual(checksBefore);
    const { rows } = await db.sql.query("SELECT count(*)::int AS n FROM pg_proc WHERE proname LIKE 'lead_intake%'");
    expect(rows).toEqual([{ n: 0 }]);
  }, 600_000);
});
