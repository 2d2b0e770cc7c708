import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATE_FILE } from "@/scripts/host/manifest";
import type { ProcessGroup } from "@/scripts/process-group";
import { call, TEST_KEY } from "../helpers/api";
import type { TestDatabase } from "../helpers/db";
import {
  checks,
  type HostInstall,
  installIntoHost,
  expectDocsServed,
  printedSteps,
  referralsPage,
  run,
  startHost,
  tree,
  treeChanges,
  uninstallAndBuild,
} from "../helpers/host-app";

/**
 * The module put into an npm-workspaces monorepo (tests/fixtures/host-monorepo): the Next 16 app in apps/crm, the
 * Prisma 7 schema, its prisma.config.ts, its migrations and its generated client in the workspace package packages/db
 * (`@crm/db`), which the app imports. The developer names the app's folder; the install finds the workspace root and
 * the schema in the package. After the printed steps the module works through the app's server, the app's lint,
 * typecheck, build and page come out as they went in, and `host:uninstall` leaves the workspace's files as they were.
 */
const APP = "apps/crm";
const DB = "packages/db";
const GENERATED = `${DB}/src/generated`;
const GENERATE = "npm install && npm exec -w @crm/db -- prisma generate";

let installed: HostInstall;
let root: string;
let app: string;
let env: Record<string, string | undefined>;
let db: TestDatabase;
let server: ProcessGroup | undefined;
let baseUrl: string;
let installOutput: string;
let before: Map<string, string>;
let afterInstall: Map<string, string>;
let checksBefore: ReturnType<typeof checks>;
let buildBefore: string[];
let buildAfter: string[];
let pageBefore: Awaited<ReturnType<typeof referralsPage>>;
let pageAfter: Awaited<ReturnType<typeof referralsPage>>;

const settings = () => ({ ...env, LEADS_API_KEY: TEST_KEY });
const hostCheck = () => run("npm", ["run", "--silent", "host:check", "--", "--url", baseUrl], app, settings());

beforeAll(async () => {
  installed = await installIntoHost({
    fixture: "host-monorepo",
    app: APP,
    schemaHome: DB,
    manager: "npm",
    install: ["npm", "ci"],
    generate: ["npm", "exec", "-w", "@crm/db", "--", "prisma", "generate"],
    generated: GENERATED,
  });
  ({ root, app, env, db, server, baseUrl, installOutput, before, afterInstall, checksBefore, buildBefore, buildAfter } =
    installed);
  ({ pageBefore, pageAfter } = installed);
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
  await installed?.stop();
});

describe("npm run host:install into the app of an npm-workspaces monorepo, its schema in a workspace package", () => {
  it("puts the module's files into the app and its models and migrations beside the package's schema", () => {
    const { added, changed } = treeChanges(before, afterInstall);
    expect(changed).toEqual([`${APP}/next.config.ts`, `${APP}/package.json`, `${DB}/prisma/schema.prisma`]);
    expect(added.filter((f) => !f.startsWith(`${APP}/`) && !f.startsWith(`${DB}/prisma/migrations/`))).toEqual([]);
    for (const file of [
      `${APP}/app/api/leads/route.ts`,
      `${APP}/instrumentation.ts`,
      `${APP}/scripts/host/check/check.ts`,
      `${APP}/${STATE_FILE}`,
      `${DB}/prisma/migrations/20261122000100_lead_intake/migration.sql`,
      `${DB}/prisma/migrations/checksums.json`,
    ])
      expect(added).toContain(file);
    // The module's client is the package's, and its runner applies the package's migrations.
    expect(readFileSync(path.join(app, "lib/generated/prisma/client.ts"), "utf8")).toBe(
      `export * from "../../../../../${DB}/src/generated/prisma/client";\n`,
    );
    expect(readFileSync(path.join(app, "lib/db/migrate.ts"), "utf8")).toContain(
      `const MIGRATIONS_FOLDER = "../../${DB}/prisma/migrations";`,
    );
    // The module's packages go to the app; the Prisma CLI and client runtime stay the schema package's.
    const dependencies = JSON.parse(readFileSync(path.join(app, "package.json"), "utf8")).dependencies;
    expect(Object.keys(dependencies)).toEqual(expect.arrayContaining(["zod", "pg", "@prisma/adapter-pg"]));
    expect(dependencies).not.toHaveProperty("prisma");
    expect(dependencies).not.toHaveProperty("@prisma/client");
    expect(installOutput.split("\n")).toContain(
      `- workspace ${root}: the module's files and packages go into the app (${APP}), its models into the schema ` +
        `of @crm/db (${DB}/prisma/schema.prisma), its migrations into ${DB}/prisma/migrations, ` +
        "and @crm/db generates the client",
    );
    expect(printedSteps(installOutput)).toEqual([
      GENERATE,
      expect.stringMatching(/^Set LEADS_API_KEY \(at least 32 characters/),
      "npm run build",
      "npm start",
      "npm run host:check",
    ]);
  });

  it("creates a lead through the app's server, lists it, and the app's own page shows it", async () => {
    const lead = { leadName: "Monorepo Lead", leadMobileNumber: "012-345 6789", referrer: "Monorepo Roadshow" };
    const created = await call("POST", "/api/leads", { baseUrl, body: lead });
    expect(created.status, created.text).toBe(201);
    const listed = await call("GET", `/api/leads?referrer=${created.body.lead.referrer.customerId}`, { baseUrl });
    expect(listed.body.leads.map((l: { leadName: string }) => l.leadName)).toEqual([lead.leadName]);
    const page = await referralsPage(baseUrl);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Monorepo Lead (Pending) from Monorepo Roadshow");
  });

  it("serves /docs and the document", async () => {
    await expectDocsServed(baseUrl);
  }, 120_000);

  it("host:check passes in the app, reading the package's schema and migrations", () => {
    const { status, output } = hostCheck();
    expect({ status, output }).toEqual({ status: 0, output: expect.any(String) });
  });

  it("leaves the app's lint, typecheck, build and page as they were", () => {
    expect(checks(app, env)).toEqual(checksBefore);
    expect(buildAfter).toEqual(buildBefore);
    expect(pageBefore.status).toBe(200);
    expect(pageAfter).toEqual(pageBefore);
  }, 300_000);

  it("host:uninstall --yes: the workspace's files, the app's lint, typecheck, build and page are as before", async () => {
    const pageWithLead = await referralsPage(baseUrl);
    await server!.stop();
    server = undefined;
    const { output, build } = uninstallAndBuild(app, "npm", env);
    expect(output).toContain(`- ../../${DB}/prisma/schema.prisma: removed Customer.sourceName`);
    expect(printedSteps(output)).toEqual([GENERATE]);
    expect(tree(root, GENERATED)).toEqual(before);
    expect(build).toEqual(buildBefore);
    expect(checks(app, env)).toEqual(checksBefore);
    // The host's rows stay, the module's lead among them.
    ({ group: server, url: baseUrl } = await startHost(app, "npm", env));
    expect(await referralsPage(baseUrl)).toEqual(pageWithLead);
    const { rows } = await db.sql.query("SELECT count(*)::int AS n FROM pg_proc WHERE proname LIKE 'lead_intake%'");
    expect(rows).toEqual([{ n: 0 }]);
  }, 600_000);
});
