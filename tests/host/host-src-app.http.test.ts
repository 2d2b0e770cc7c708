import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateEdit, gateStep } from "@/scripts/host/check/gate";
import type { ProcessGroup } from "@/scripts/process-group";
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
  pnpmOnPath,
  pnpmResolution,
  printedSteps,
  referralsPage,
  SESSION,
  startHost,
  tree,
  treeChanges,
  uninstallAndBuild,
} from "../helpers/host-app";
import { createEmptyDatabase } from "../helpers/host-install";

/**
 * The module put into a create-next-app@16 --src-dir host on pnpm (tests/fixtures/host-src-app): `@/*` maps to
 * ./src/*, its Prisma 7 schema is a folder of .prisma files named by prisma.config.ts with its client in
 * src/generated/prisma, and its own src/proxy.ts sends every path without a session cookie to /login. The host is
 * built, checked and started before the install; after it, the printed steps (the edit of its gate among them), the
 * module works through the host's server and the host's lint, typecheck, build and page come out as they went in.
 */
const GATE = "src/proxy.ts";
/** The install's step for the host's gate: its own function, the module's paths let through first in it. */
const GATE_STEP = gateStep(GATE, gateEdit(readFileSync(path.join(FIXTURES, "host-src-app", GATE), "utf8"))!);
const LOCKFILE = "pnpm-lock.yaml";

let parent: string;
let host: string;
let env: Record<string, string | undefined>;
let db: TestDatabase;
let installed: GatedInstall;
let server: ProcessGroup | undefined;

beforeAll(async () => {
  parent = mkdtempSync(path.join(tmpdir(), "lead-intake-host-src-"));
  host = path.join(parent, "host-src-app");
  cpSync(path.join(FIXTURES, "host-src-app"), host, { recursive: true });
  db = await createEmptyDatabase();
  env = { ...MACHINE, PATH: pnpmOnPath(parent), DATABASE_URL: db.url };
  // The host as it was: its packages, its client, its migration applied as `prisma migrate deploy` applies it.
  await applyHostMigrations(host, db.url);
  mustRun("pnpm", ["install", "--frozen-lockfile"], host, env);
  mustRun("pnpm", ["exec", "prisma", "generate"], host, env);
  installed = await installBehindGate(host, {
    manager: "pnpm",
    env,
    generated: "src/generated",
  });
  server = installed.server;
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
  await db?.sql.end();
  if (parent) rmSync(parent, { recursive: true, force: true });
});

describe("npm run host:install into a create-next-app@16 --src-dir host on pnpm with its own gate", () => {
  it("puts the module under src/, merges the schema folder, keeps the gate, prints pnpm's steps", () => {
    const { before, afterInstall, installOutput } = installed;
    const { added, changed } = treeChanges(before, afterInstall);
    expect(changed).toEqual([
      "next.config.ts",
      "package.json",
      "prisma/schema/customers.prisma",
      "prisma/schema/referrals.prisma",
    ]);
    for (const file of [
      "src/app/api/leads/route.ts",
      "src/instrumentation.ts",
      "src/lib/preload/next-server-preload.mjs",
      "prisma/schema/lead_intake.prisma",
      "prisma/migrations/20261122000100_lead_intake/migration.sql",
      "scripts/host/check/check.ts",
    ])
      expect(added).toContain(file);
    expect(added.filter((f) => /^(lib|app)\//.test(f))).toEqual([]);
    expect(readFileSync(path.join(host, "src/lib/generated/prisma/client.ts"), "utf8")).toBe(
      'export * from "@/generated/prisma/client";\n',
    );
    expect(installOutput.split("\n")).toContain(
      `- ${GATE} is the host's own and left as it is: a step below says the edit that lets the module's paths through`,
    );
    expect(printedSteps(installOutput)).toEqual([
      "pnpm install --no-frozen-lockfile && pnpm exec prisma generate",
      expect.stringMatching(/^Set LEADS_API_KEY \(at least 32 characters/),
      GATE_STEP,
      "pnpm run build",
      "pnpm start",
      "pnpm run host:check",
    ]);
    expect(JSON.parse(readFileSync(path.join(host, "package.json"), "utf8")).scripts.start).toBe(
      'NODE_OPTIONS="$NODE_OPTIONS --import=./src/lib/preload/next-server-preload.mjs" next start',
    );
  });

  it("host:check FAILs, naming the gate, while the host's gate sends the module's path to /login", () => {
    expectGateFailure(installed.gateFailure, GATE, GATE_STEP);
  });

  it("creates a lead through the host's server and lists it; the host's page shows it behind its gate", async () => {
    await expectLeadShownBehindGate(installed, {
      leadName: "Src Host Lead",
      leadMobileNumber: "012-345 6789",
      referrer: "Src Roadshow",
    });
  });

  it("serves /docs and the document past the host's gate", async () => {
    await expectDocsServed(installed.baseUrl);
  }, 120_000);

  it("host:check passes through the host's server", () => {
    expectHostCheckPasses(host, "pnpm", env, installed.baseUrl);
  });

  it("leaves the host's lint, typecheck, build and page as they were", () => {
    expect(checks(host, env, "pnpm")).toEqual(installed.checksBefore);
    expect(installed.buildAfter).toEqual(installed.buildBefore);
    expect(installed.pageAfter).toEqual(installed.pageBefore);
  }, 300_000);

  it("host:uninstall --yes: the schema folder, the host's files, lint, typecheck, build and page are as before", async () => {
    const { before, buildBefore, checksBefore } = installed;
    const pageWithLead = await referralsPage(installed.baseUrl, SESSION);
    await server?.stop();
    // The gate's line is the host's own edit, taken out by the host.
    cpSync(path.join(FIXTURES, "host-src-app", GATE), path.join(host, GATE));
    const { output, build } = uninstallAndBuild(host, "pnpm", env);
    expect(output).toContain("- prisma/schema: removed Customer.sourceName");
    expect(printedSteps(output)).toEqual(["pnpm install --no-frozen-lockfile && pnpm exec prisma generate"]);
    const after = tree(host, "src/generated");
    const lock = readFileSync(path.join(host, LOCKFILE), "utf8");
    const committed = readFileSync(path.join(FIXTURES, "host-src-app", LOCKFILE), "utf8");
    expect(pnpmResolution(lock)).toBe(pnpmResolution(committed));
    after.set(LOCKFILE, before.get(LOCKFILE)!);
    expect(after).toEqual(before);
    expect(build).toEqual(buildBefore);
    expect(checks(host, env, "pnpm")).toEqual(checksBefore);
    // The host's rows stay, the module's lead among them.
    const restarted = await startHost(host, "pnpm", env, "/login");
    server = restarted.group;
    expect(await referralsPage(restarted.url, SESSION)).toEqual(pageWithLead);
  }, 600_000);
});
