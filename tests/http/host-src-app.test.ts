import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { moduleFiles } from "@/scripts/host/manifest";
import { gateLine } from "@/scripts/host/gate";
import type { ProcessGroup } from "@/scripts/process-group";
import { call, TEST_KEY } from "../helpers/api";
import type { TestDatabase } from "../helpers/db";
import { leftToDo, mustRun, pnpmOnPath, ROOT, run, startHost, tree } from "../helpers/host-app";
import { createEmptyDatabase } from "../helpers/host-install";

/**
 * The module put into a create-next-app@16 --src-dir host on pnpm (tests/fixtures/host-src-app): `@/*` maps to
 * ./src/*, its Prisma 7 schema is a folder of .prisma files named by prisma.config.ts with its client in
 * src/generated/prisma, and its own src/proxy.ts sends every path without a session cookie to /login. The host is
 * built and linted before the install; after it, the printed steps, the one line on the gate and the host's build,
 * the module works through the host's server and the host's lint, typecheck and build come out as they went in.
 */
const FIXTURE = path.join(ROOT, "tests/fixtures/host-src-app");
const GATE = "src/proxy.ts";
const SESSION = { cookie: "session=host-user" };
/** The generated client, which the host's .gitignore keeps out of its files. */
const GENERATED = ["src/generated"];

let parent: string;
let host: string;
let env: Record<string, string | undefined>;
let db: TestDatabase;
let server: ProcessGroup;
let baseUrl: string;
let installOutput: string;
let steps: string[];
let before: Map<string, string>;
let afterInstall: Map<string, string>;
let gateFailure: { status: number | null; output: string };
let outcomeBefore: Outcome;
let outcomeAfter: Outcome;

interface Outcome {
  lint: { status: number | null; problems: string[] };
  typecheck: { status: number | null; errors: string[] };
  build: { status: number | null; warnings: string[] };
}

/** The host's build, then its lint and typecheck (its layout's types come from the build), as their outcome. */
function buildAndCheck(): Outcome {
  const build = run("pnpm", ["run", "build"], host, env);
  const lint = run("pnpm", ["run", "lint"], host, env);
  const typecheck = run("pnpm", ["exec", "tsc", "--noEmit"], host, env);
  const lines = (output: string, pattern: RegExp) => output.split("\n").filter((line) => pattern.test(line));
  return {
    lint: { status: lint.status, problems: lines(lint.output, /\b(error|warning)\b/) },
    typecheck: { status: typecheck.status, errors: lines(typecheck.output, /error TS/) },
    build: { status: build.status, warnings: lines(build.output, /(⚠|\bwarn|\berror\b)/i) },
  };
}

/** The host's own check, through the host's running server at `url`. */
const hostCheck = (url: string) =>
  run("pnpm", ["run", "--silent", "host:check", "--url", url], host, { ...env, LEADS_API_KEY: TEST_KEY });

beforeAll(async () => {
  parent = mkdtempSync(path.join(tmpdir(), "lead-intake-host-src-"));
  host = path.join(parent, "host-src-app");
  cpSync(FIXTURE, host, { recursive: true });
  db = await createEmptyDatabase();
  // The schema engine is not needed to generate; its download is not possible here (package.json's db:generate).
  env = { PATH: pnpmOnPath(parent), PRISMA_SCHEMA_ENGINE_BINARY: "package.json", DATABASE_URL: db.url };
  before = tree(host, GENERATED);
  mustRun("pnpm", ["install", "--frozen-lockfile"], host, env);
  mustRun("pnpm", ["exec", "prisma", "generate"], host, env);
  outcomeBefore = buildAndCheck();
  const hostOnly = await startHost(host, env);

  try {
    installOutput = mustRun("npm", ["run", "--silent", "host:install", "--", host], ROOT);
    afterInstall = tree(host, GENERATED);
    steps = leftToDo(installOutput);
    mustRun("bash", ["-c", steps[0]], host, env);
    // The host's gate as it was, in front of the module's path.
    gateFailure = hostCheck(hostOnly.url);
  } finally {
    await hostOnly.group.stop();
  }

  // The one line on the gate, followed as a host developer would: its statement first in the gate's function.
  const statement = installOutput
    .split("\n")
    .find((line) => line.startsWith(`- ${GATE} `))!
    .split("first in it: ")[1];
  const gate = readFileSync(path.join(host, GATE), "utf8");
  writeFileSync(
    path.join(host, GATE),
    gate.replace(/(export function proxy\(request: NextRequest\) \{\n)/, `$1  ${statement}\n`),
  );
  outcomeAfter = buildAndCheck();
  const start = /^Start with the preload: NODE_OPTIONS=(\S+) next start$/.exec(steps[2])!;
  ({ group: server, url: baseUrl } = await startHost(host, {
    ...env,
    NODE_OPTIONS: start[1],
    LEADS_API_KEY: TEST_KEY,
  }));
}, 1_500_000);

afterAll(async () => {
  await server?.stop();
  await db?.sql.end();
  if (parent) rmSync(parent, { recursive: true, force: true });
});

describe("npm run host:install into a create-next-app@16 --src-dir host on pnpm with its own gate", () => {
  it("puts the module under src/, merges the schema folder, keeps the gate and says how to let the module in", () => {
    const added = [...afterInstall.keys()].filter((f) => !before.has(f));
    const changed = [...before.keys()].filter((f) => afterInstall.get(f) !== before.get(f)).sort();
    expect(changed).toEqual([
      "next.config.ts",
      "package.json",
      "prisma/schema/customers.prisma",
      "prisma/schema/referrals.prisma",
    ]);
    expect(added).toContain("src/lib/api/handler.ts");
    expect(added).toContain("src/app/api/leads/route.ts");
    expect(added).toContain("src/instrumentation.ts");
    expect(added).toContain("prisma/schema/lead_intake.prisma");
    expect(added).toContain("prisma/migrations/20261122000100_lead_intake/migration.sql");
    expect(added).toContain("scripts/host/check.ts");
    expect(added.filter((f) => f.startsWith("lib/") || f.startsWith("app/"))).toEqual([]);
    expect(moduleFiles(ROOT).filter((f) => f.startsWith("lib/")).length).toBeGreaterThan(0);
    expect(readFileSync(path.join(host, "src/lib/generated/prisma/client.ts"), "utf8")).toBe(
      'export * from "@/generated/prisma/client";\n',
    );
    expect(installOutput.split("\n")).toContain(`- ${gateLine(GATE)}`);
    expect(steps[0]).toBe("pnpm install && pnpm exec prisma generate");
    expect(steps[2]).toBe(
      "Start with the preload: NODE_OPTIONS=--import=./src/lib/runtime/next-server-preload.mjs next start",
    );
  });

  it("host:check FAILs, naming the gate, while the host's gate sends the module's path to /login", () => {
    expect(gateFailure.status).toBe(1);
    const line = gateFailure.output.split("\n").find((l) => l.startsWith("FAIL gate:"));
    expect(line).toMatch(/^FAIL gate: GET \/api\/leads\/sources with the key was redirected \(307 to \/login\) by /);
    expect(line).toContain(`by the host's ${GATE}; ${gateLine(GATE)}`);
  });

  it("creates a lead through the host's server and lists it; the host's page shows it behind its gate", async () => {
    const lead = { leadName: "Src Host Lead", leadMobileNumber: "012-345 6789", referrer: "Src Roadshow" };
    const created = await call("POST", "/api/leads", { baseUrl, body: lead });
    expect(created.status, created.text).toBe(201);
    const listed = await call("GET", `/api/leads?referrer=${created.body.lead.referrer.customerId}`, { baseUrl });
    expect(listed.body.leads.map((l: { leadName: string }) => l.leadName)).toEqual([lead.leadName]);
    const page = await fetch(`${baseUrl}/referrals`, { headers: SESSION });
    expect(page.status).toBe(200);
    expect((await page.text()).replaceAll("<!-- -->", "")).toContain("Src Host Lead (Pending) from Src Roadshow");
    const gated = await fetch(`${baseUrl}/referrals`, { redirect: "manual" });
    expect({ status: gated.status, location: gated.headers.get("location") }).toEqual({
      status: 307,
      location: `${baseUrl}/login`,
    });
  });

  it("serves /docs and the document past the host's gate", async () => {
    const docs = await fetch(`${baseUrl}/docs`, { redirect: "manual" });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("Lead Intake API documentation");
    const document = await fetch(`${baseUrl}/openapi.json`, { redirect: "manual" });
    expect(document.status).toBe(200);
  });

  it("host:check passes through the host's server", () => {
    const { status, output } = hostCheck(baseUrl);
    expect({ status, output }).toEqual({ status: 0, output: expect.any(String) });
    expect(output.split("\n")).toContain(
      `ok   gate: GET /api/leads/sources with the key answered 200 through ${baseUrl}`,
    );
  });

  it("leaves the outcome of the host's lint, typecheck and build as it was", () => {
    expect(outcomeBefore.build.status).toBe(0);
    expect(outcomeAfter).toEqual(outcomeBefore);
  });
});
