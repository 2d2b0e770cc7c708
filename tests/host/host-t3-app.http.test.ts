import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateEdit, gateStep } from "@/scripts/host/check/gate";
import type { ProcessGroup } from "@/scripts/process-group";
import { call } from "../helpers/api";
import type { TestDatabase } from "../helpers/db";
import {
  applyHostMigrations,
  checks,
  expectDocsServed,
  expectGateFailure,
  expectHostCheckPasses,
  expectLeadShownBehindGate,
  FIXTURES,
  type GatedInstall,
  installBehindGate,
  MACHINE,
  mustRun,
  printedSteps,
  problems,
  referralsPage,
  SESSION,
  startHost,
  tree,
  treeChanges,
  uninstallWithStep,
} from "../helpers/host-app";
import { createEmptyDatabase } from "../helpers/host-install";

/**
 * The module put into a create-t3-app host (tests/fixtures/host-t3-app): Next 15, Prisma 6 with `prisma-client-js`
 * generating into generated/prisma, zod 3.25, `~/*` mapped to ./src/*, t3's strict tsconfig and type-checked lint,
 * and its own src/middleware.ts that sends every path without a session cookie to /login. Its package.json has
 * create-t3-app 7.40's own ranges (zod ^3.24.2, next ^15.2.3, Prisma ^6.6.0) and its lockfile what npm resolves for
 * them (zod 3.25.76, next 15.5, Prisma 6.19.3), which the install reads, so it needs no Prisma preview feature and
 * keeps the host's ranges. The host lists @prisma/adapter-pg at its Prisma range ^6.6.0, as the install would add it
 * to a t3 host, because its own src/server/db.ts gives the engine-less client (`engineType = "client"`) that adapter.
 * The host is built, checked and started before the install; after it, the printed steps (the edit of its gate among
 * them), the module works through the host's server and the host's lint, typecheck, build and page come out as they
 * went in; after the uninstall and its step, the host's files, lint, typecheck and build are those from before.
 */
const GATE = "src/middleware.ts";
/** The install's step for the host's gate: its own function, the module's paths let through first in it. */
const GATE_STEP = gateStep(GATE, gateEdit(readFileSync(path.join(FIXTURES, "host-t3-app", GATE), "utf8"))!);
/** The host's generated client, which its own `npm install` writes (not a file of the host's). */
const GENERATED = "generated";

let parent: string;
let host: string;
let env: Record<string, string | undefined>;
let db: TestDatabase;
let installed: GatedInstall;
let server: ProcessGroup | undefined;
let baseUrl: string;

beforeAll(async () => {
  parent = mkdtempSync(path.join(tmpdir(), "lead-intake-host-t3-"));
  host = path.join(parent, "host-t3-app");
  cpSync(path.join(FIXTURES, "host-t3-app"), host, { recursive: true });
  db = await createEmptyDatabase();
  // Prisma 6's CLI downloads its query engine unless told where one is; the fixture's client needs none
  // (engineType "client"), so any file does, as for the schema engine. t3's src/env.js wants DATABASE_URL at build.
  env = { ...MACHINE, PRISMA_QUERY_ENGINE_LIBRARY: "package.json", DATABASE_URL: db.url };
  // The host as it was: its packages and client (its postinstall), its migration applied as `prisma migrate deploy`.
  await applyHostMigrations(host, db.url);
  mustRun("npm", ["ci"], host, env);
  installed = await installBehindGate(host, {
    manager: "npm",
    env,
    generated: GENERATED,
  });
  ({ server, baseUrl } = installed);
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
  await db?.sql.end();
  if (parent) rmSync(parent, { recursive: true, force: true });
});

describe("npm run host:install into a create-t3-app host: Next 15, Prisma 6, zod 3.25, its own middleware.ts", () => {
  it("puts the module under src/ with t3's alias, keeps Prisma 6 and zod 3, prints npm's steps", () => {
    const { before, afterInstall, installOutput } = installed;
    const { added, changed } = treeChanges(before, afterInstall);
    expect(changed).toEqual(["next.config.js", "package.json", "prisma/schema.prisma"]);
    for (const file of [
      "src/app/api/leads/route.ts",
      "src/instrumentation.ts",
      "src/lib/preload/next-server-preload.mjs",
      "prisma/migrations/20261122000100_lead_intake/migration.sql",
      "scripts/host/check/check.ts",
    ])
      expect(added).toContain(file);
    expect(added.filter((f) => /^(lib|app)\//.test(f))).toEqual([]);
    expect(readFileSync(path.join(host, "src/lib/api/auth.ts"), "utf8")).toContain('from "~/lib/api/api-key.mjs"');
    // prisma-client-js's output is outside src/: re-exported by its path.
    expect(readFileSync(path.join(host, "src/lib/generated/prisma/client.ts"), "utf8")).toBe(
      'export * from "../../../../generated/prisma";\n',
    );
    expect(installOutput.split("\n")).toContain(
      `- ${GATE} is the host's own and left as it is: a step below says the edit that lets the module's paths through`,
    );
    expect(printedSteps(installOutput)).toEqual([
      "npm install && npx prisma generate",
      expect.stringMatching(/^Set LEADS_API_KEY \(at least 32 characters/),
      GATE_STEP,
      "npm run build",
      "npm start",
      "npm run host:check",
    ]);
    const packageJson = JSON.parse(readFileSync(path.join(host, "package.json"), "utf8"));
    expect(packageJson.scripts.start).toBe(
      'NODE_OPTIONS="$NODE_OPTIONS --import=./src/lib/preload/next-server-preload.mjs" next start',
    );
    // Prisma's packages at the host's Prisma 6 range; the host's zod range stays, its lockfile's 3.25 accepted.
    expect({
      adapter: packageJson.dependencies["@prisma/adapter-pg"],
      utils: packageJson.dependencies["@prisma/driver-adapter-utils"],
      instrumentation: packageJson.dependencies["@prisma/instrumentation"],
      client: packageJson.dependencies["@prisma/client"],
      zod: packageJson.dependencies.zod,
    }).toEqual({ adapter: "^6.6.0", utils: "^6.6.0", instrumentation: "^6.6.0", client: "^6.6.0", zod: "^3.24.2" });
    expect(installOutput).toContain("- kept the host's zod@^3.24.2 (the module is tested with ");
    expect(readFileSync(path.join(host, "prisma/schema.prisma"), "utf8")).not.toContain("previewFeatures");
    expect(readFileSync(path.join(host, "next.config.js"), "utf8")).toContain(
      'serverExternalPackages: ["pg", "@prisma/adapter-pg", "next-swagger-doc"]',
    );
  });

  it("host:check FAILs, naming the gate, while the host's middleware sends the module's path to /login", () => {
    expectGateFailure(installed.gateFailure, GATE, GATE_STEP);
  });

  it("creates a lead through the host's server and lists it; the host's page shows it behind its gate", async () => {
    await expectLeadShownBehindGate(installed, {
      leadName: "T3 Host Lead",
      leadMobileNumber: "012-345 6789",
      referrer: "T3 Roadshow",
    });
  });

  it("lists agents and sources through Prisma 6's client, built twice by Next 15 (instrumentation and routes)", async () => {
    const agents = await call("GET", "/api/leads/agents", { baseUrl });
    expect(agents.body.agents.map((a: { name: string }) => a.name)).toEqual(["Siti Sales"]);
    const sources = await call("GET", "/api/leads/sources", { baseUrl });
    expect(sources.body.sources.map((s: { name: string }) => s.name)).toContain("T3 Roadshow");
  });

  it("serves /docs, Swagger UI's files and the document past the host's gate", async () => {
    await expectDocsServed(baseUrl);
    const script = await fetch(`${baseUrl}/swagger-ui/swagger-ui-bundle.js`, { redirect: "manual" });
    expect({ status: script.status, type: script.headers.get("content-type") }).toEqual({
      status: 200,
      type: "text/javascript; charset=utf-8",
    });
    expect((await fetch(`${baseUrl}/swagger-ui/index.html`, { redirect: "manual" })).status).toBe(404);
  }, 120_000);

  it("host:check passes through the host's server", () => {
    expectHostCheckPasses(host, "npm", env, baseUrl);
  });

  it("leaves the host's lint, typecheck, build and page as they were", () => {
    expect(checks(host, env)).toEqual(installed.checksBefore);
    expect(installed.buildAfter).toEqual(installed.buildBefore);
    expect(installed.pageAfter).toEqual(installed.pageBefore);
  }, 300_000);

  it("host:uninstall --yes: the host's files, lint, typecheck, build and page are again those from before", async () => {
    await server?.stop();
    server = undefined;
    expect(printedSteps(uninstallWithStep(host, db.url, env))).toEqual(["npm install && npx prisma generate"]);
    // The host takes the gate's line out again: the module's paths are the host's to gate once more.
    writeFileSync(path.join(host, GATE), readFileSync(path.join(FIXTURES, "host-t3-app", GATE)));
    expect(tree(host, GENERATED)).toEqual(installed.before);
    rmSync(path.join(host, ".next"), { recursive: true, force: true });
    expect(problems(mustRun("npm", ["run", "build"], host, env))).toEqual(installed.buildBefore);
    expect(checks(host, env)).toEqual(installed.checksBefore);
    const { group, url } = await startHost(host, "npm", env, "/login");
    try {
      // The host's rows stay, the lead's among them.
      const page = await referralsPage(url, SESSION);
      expect(page.status).toBe(200);
      expect(page.text).toContain("T3 Host Lead (Pending) from T3 Roadshow");
      expect((await fetch(`${url}/api/leads`, { headers: SESSION })).status).toBe(404);
    } finally {
      await group.stop();
    }
  }, 900_000);
});
