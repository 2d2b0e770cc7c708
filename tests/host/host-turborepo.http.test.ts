import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATE_FILE } from "@/scripts/host/manifest";
import type { ProcessGroup } from "@/scripts/process-group";
import { call } from "../helpers/api";
import type { TestDatabase } from "../helpers/db";
import {
  checks,
  type HostInstall,
  installIntoHost,
  expectDocsServed,
  FIXTURES,
  hostCheck,
  pnpmResolution,
  printedSteps,
  referralsPage,
  startHost,
  tree,
  treeChanges,
  uninstallAndBuild,
} from "../helpers/host-app";

/**
 * The module put into a pnpm-workspace monorepo in Turborepo's layout (tests/fixtures/host-turborepo): the Next 16 app
 * in apps/web with src/ and `@/*` to ./src/*, the Prisma 7 schema, its prisma.config.ts, its migrations and its
 * generated client in the workspace package packages/database (`@repo/database`, `workspace:*` in the app), one
 * pnpm-lock.yaml at the root. The developer names the app's folder; the install finds the workspace root by
 * pnpm-workspace.yaml and the schema in the package. After the printed steps the module works through the app's server,
 * the app's lint, typecheck, build and page come out as they went in, and `host:uninstall` leaves the workspace's files
 * as they were.
 */
const APP = "apps/web";
const DB = "packages/database";
const GENERATED = `${DB}/src/generated`;
const LOCKFILE = "pnpm-lock.yaml";
const GENERATE = "pnpm install --no-frozen-lockfile && pnpm --filter @repo/database exec prisma generate";

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

beforeAll(async () => {
  installed = await installIntoHost({
    fixture: "host-turborepo",
    app: APP,
    schemaHome: DB,
    manager: "pnpm",
    install: ["pnpm", "install", "--frozen-lockfile"],
    generate: ["pnpm", "--filter", "@repo/database", "exec", "prisma", "generate"],
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

describe("npm run host:install into apps/web of a Turborepo pnpm workspace, its schema in packages/database", () => {
  it("puts the module under the app's src/ and its models and migrations beside the package's schema", () => {
    const { added, changed } = treeChanges(before, afterInstall);
    expect(changed).toEqual([`${APP}/next.config.ts`, `${APP}/package.json`, `${DB}/prisma/schema.prisma`]);
    expect(added.filter((f) => !f.startsWith(`${APP}/`) && !f.startsWith(`${DB}/prisma/migrations/`))).toEqual([]);
    for (const file of [
      `${APP}/src/app/api/leads/route.ts`,
      `${APP}/src/instrumentation.ts`,
      `${APP}/src/lib/preload/next-server-preload.mjs`,
      `${APP}/scripts/host/check/check.ts`,
      `${APP}/${STATE_FILE}`,
      `${DB}/prisma/migrations/20261122000100_lead_intake/migration.sql`,
      `${DB}/prisma/migrations/checksums.json`,
    ])
      expect(added).toContain(file);
    expect(added.filter((f) => /^apps\/web\/(lib|app)\//.test(f))).toEqual([]);
    // The module's client is the package's, and its runner applies the package's migrations.
    expect(readFileSync(path.join(app, "src/lib/generated/prisma/client.ts"), "utf8")).toBe(
      `export * from "../../../../../../${DB}/src/generated/prisma/client";\n`,
    );
    expect(readFileSync(path.join(app, "src/lib/db/migrate.ts"), "utf8")).toContain(
      `const MIGRATIONS_FOLDER = "../../${DB}/prisma/migrations";`,
    );
    // The module's packages go to the app; the Prisma CLI and client runtime stay the schema package's.
    const json = JSON.parse(readFileSync(path.join(app, "package.json"), "utf8"));
    expect(Object.keys(json.dependencies)).toEqual(expect.arrayContaining(["zod", "pg", "@prisma/adapter-pg"]));
    expect(json.dependencies).not.toHaveProperty("prisma");
    expect(json.dependencies).not.toHaveProperty("@prisma/client");
    expect(json.dependencies["@repo/database"]).toBe("workspace:*");
    expect(json.scripts.start).toBe(
      'NODE_OPTIONS="$NODE_OPTIONS --import=./src/lib/preload/next-server-preload.mjs" next start',
    );
    expect(installOutput.split("\n")).toContain(
      `- workspace ${root}: the module's files and packages go into the app (${APP}), its models into the schema ` +
        `of @repo/database (${DB}/prisma/schema.prisma), its migrations into ${DB}/prisma/migrations, ` +
        "and @repo/database generates the client",
    );
    expect(printedSteps(installOutput)).toEqual([
      GENERATE,
      expect.stringMatching(/^Set LEADS_API_KEY \(at least 32 characters/),
      "pnpm run build",
      "pnpm start",
      "pnpm run host:check",
    ]);
  });

  it("creates a lead through the app's server, lists it, and the app's own page shows it", async () => {
    const lead = { leadName: "Turborepo Lead", leadMobileNumber: "012-345 6789", referrer: "Turborepo Roadshow" };
    const created = await call("POST", "/api/leads", { baseUrl, body: lead });
    expect(created.status, created.text).toBe(201);
    const listed = await call("GET", `/api/leads?referrer=${created.body.lead.referrer.customerId}`, { baseUrl });
    expect(listed.body.leads.map((l: { leadName: string }) => l.leadName)).toEqual([lead.leadName]);
    const page = await referralsPage(baseUrl);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Turborepo Lead (Pending) from Turborepo Roadshow");
  });

  it("serves /docs and the document", async () => {
    await expectDocsServed(baseUrl);
  }, 120_000);

  it("host:check passes in the app, reading the package's schema and migrations", () => {
    const { status, output } = hostCheck(app, "pnpm", env, baseUrl);
    expect({ status, output }).toEqual({ status: 0, output: expect.any(String) });
  });

  it("leaves the app's lint, typecheck, build and page as they were", () => {
    // The workspace as committed lints and type-checks clean.
    expect(checksBefore).toEqual({ lint: { status: 0, problems: [] }, typecheck: { status: 0, problems: [] } });
    expect(checks(app, env, "pnpm")).toEqual(checksBefore);
    expect(buildAfter).toEqual(buildBefore);
    expect(pageBefore.status).toBe(200);
    expect(pageAfter).toEqual(pageBefore);
  }, 300_000);

  it("host:uninstall --yes: the workspace's files, the app's lint, typecheck, build and page are as before", async () => {
    const pageWithLead = await referralsPage(baseUrl);
    await server!.stop();
    server = undefined;
    const { output, build } = uninstallAndBuild(app, "pnpm", env);
    expect(output).toContain(`- ../../${DB}/prisma/schema.prisma: removed Customer.sourceName`);
    expect(printedSteps(output)).toEqual([GENERATE]);
    const after = tree(root, GENERATED);
    const lock = readFileSync(path.join(root, LOCKFILE), "utf8");
    const committed = readFileSync(path.join(FIXTURES, "host-turborepo", LOCKFILE), "utf8");
    expect(pnpmResolution(lock)).toBe(pnpmResolution(committed));
    after.set(LOCKFILE, before.get(LOCKFILE)!);
    expect(after).toEqual(before);
    expect(build).toEqual(buildBefore);
    expect(checks(app, env, "pnpm")).toEqual(checksBefore);
    // The host's rows stay, the module's lead among them.
    ({ group: server, url: baseUrl } = await startHost(app, "pnpm", env));
    expect(await referralsPage(baseUrl)).toEqual(pageWithLead);
    const { rows } = await db.sql.query("SELECT count(*)::int AS n FROM pg_proc WHERE proname LIKE 'lead_intake%'");
    expect(rows).toEqual([{ n: 0 }]);
  }, 600_000);
});
