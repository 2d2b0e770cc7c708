import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { applyMigrations } from "@/lib/db/migrate";
import { docsInChromium, OPERATIONS } from "./chromium";
import { ABOUT_THE_MACHINE } from "@/scripts/build-notices.mjs";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";
import { expect } from "vitest";
import { call, TEST_KEY } from "./api";
import { applyEditStep } from "./gate-edit";
import type { TestDatabase } from "./db";
import { createEmptyDatabase } from "./host-install";

/**
 * A host app as its developer runs it, for the tests that install the module into a fixture host
 * (tests/host/host-*.http.test.ts): its commands, its files, its checks and its own start.
 */
export const ROOT = path.resolve(import.meta.dirname, "../..");
export const FIXTURES = path.join(ROOT, "tests/fixtures");

/** The machine's own settings for the printed commands: no schema engine download, the npm cache first. */
export const MACHINE = {
  PRISMA_SCHEMA_ENGINE_BINARY: "package.json",
  npm_config_prefer_offline: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
};

export function run(command: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}) {
  const environment = Object.fromEntries(
    Object.entries({ ...process.env, ...env }).filter(([, value]) => value !== undefined),
  ) as NodeJS.ProcessEnv;
  const result = spawnSync(command, args, { cwd, env: environment, encoding: "utf8", timeout: 600_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

export function mustRun(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): string {
  const { status, output } = run(command, args, cwd, env);
  if (status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${status}:\n${output.slice(-4000)}`);
  return output;
}

/**
 * Every file under a folder with its SHA-256, but what the host's tools write (in any folder: a workspace's apps and
 * packages have their own) and the `generated` client.
 */
export function tree(dir: string, generated = "app/generated"): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (relative: string) => {
    for (const name of readdirSync(path.join(dir, relative))) {
      const child = relative ? `${relative}/${name}` : name;
      if (child === generated || ["node_modules", ".next", "next-env.d.ts", "tsconfig.tsbuildinfo"].includes(name))
        continue;
      if (statSync(path.join(dir, child)).isDirectory()) walk(child);
      else
        files.set(
          child,
          createHash("sha256")
            .update(readFileSync(path.join(dir, child)))
            .digest("hex"),
        );
    }
  };
  walk("");
  return files;
}

/** The files added and the files changed from one tree() of a host to another. */
export function treeChanges(before: Map<string, string>, after: Map<string, string>) {
  return {
    added: [...after.keys()].filter((f) => !before.has(f)),
    changed: [...before.keys()].filter((f) => after.get(f) !== before.get(f)).sort(),
  };
}

/** The steps the install printed after "Left to do", without their numbers. */
export function printedSteps(output: string): string[] {
  const rest = output.slice(output.indexOf("Left to do"));
  return [...rest.matchAll(/^\d+\. (.+)$/gm)].map((m) => m[1]);
}

/** The lines of a command's output that tell of a problem (not the build's notice about the machine). */
export const problems = (output: string) =>
  output
    .split("\n")
    .filter((line) => /\b(error|warning|warn)\b|⚠|✖/i.test(line) && !ABOUT_THE_MACHINE.test(line))
    .map((line) => line.trim());

/** What the host's lint and typecheck say, run by its package manager: their exit status and their problems. */
export function checks(host: string, env: Record<string, string | undefined>, manager: "npm" | "pnpm" = "npm") {
  const lint = run(manager, ["run", "--silent", "lint"], host, env);
  const typecheck = run(
    manager === "npm" ? "npx" : manager,
    [...(manager === "npm" ? [] : ["exec"]), "tsc", "--noEmit"],
    host,
    env,
  );
  return {
    lint: { status: lint.status, problems: problems(lint.output) },
    typecheck: { status: typecheck.status, problems: problems(typecheck.output) },
  };
}

/**
 * Lets the event loop read what arrived while a spawnSync blocked it: a keep-alive socket the server closed meanwhile
 * is dropped before the next request, which would otherwise be written to it and fail with "other side closed".
 */
/**
 * A pnpm lockfile as what it resolves. It drops what pnpm keeps after the module's packages are gone (its resolution of
 * Next's optional peer @opentelemetry/api, docs/host-guide.md "Uninstalling") and the peers' own suffixes inside a
 * suffix, which pnpm 9 cuts at a different place between runs for a peer cycle (eslint-plugin-import and its resolver).
 */
export function pnpmResolution(lock: string): string {
  let depth = 0;
  let kept = "";
  for (const char of lock.replace(/\(@opentelemetry\/api@[\d.]+\)/g, "")) {
    if (char === "(") depth += 1;
    if (depth < 2) kept += char;
    if (char === ")") depth -= 1;
  }
  return kept
    .replace(/^ {2}'@opentelemetry\/api@[\d.]+':\n( {4}.*\n)+\n/gm, "")
    .replace(/^ {6}'@opentelemetry\/api': [\d.]+\n/gm, "");
}

export const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/** The text of the host's /referrals page, streamed parts included, without markup, scripts or styles. */
export async function referralsPage(url: string, headers: Record<string, string> = {}) {
  await settle();
  const res = await fetch(`${url}/referrals`, { headers });
  const text = (await res.text())
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/g, "")
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, "|")
    .replace(/\|+/g, "|");
  return { status: res.status, text };
}

/** The host started the way it starts, its package manager's `start` (after the install, with the preload). */
export async function startHost(
  host: string,
  manager: "npm" | "pnpm",
  env: Record<string, string | undefined>,
  readyPath = "/referrals",
): Promise<{ group: ProcessGroup; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const group = await startProcessGroup(
    manager,
    ["start"],
    { PORT: String(port), LEADS_ACCESS_LOG: "on", NODE_OPTIONS: undefined, ...env },
    `${url}${readyPath}`,
    { cwd: host },
  );
  return { group, url };
}

/**
 * A folder with a `pnpm` command (pnpm 9 through npx, as the steps printed for a pnpm host name it), to put first
 * on PATH: the machine has no pnpm of its own.
 */
export function pnpmOnPath(parent: string): string {
  const bin = path.join(parent, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, "pnpm"), '#!/bin/sh\nexec npx -y pnpm@9.15.9 "$@"\n');
  chmodSync(path.join(bin, "pnpm"), 0o755);
  return `${bin}${path.delimiter}${process.env.PATH ?? ""}`;
}

/** The host's own migrations (in prisma/migrations before the install), applied as `prisma migrate deploy` does. */
export async function applyHostMigrations(host: string, databaseUrl: string): Promise<void> {
  const folder = path.join(host, "prisma/migrations");
  const migrations = readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map(({ name }) => {
      const sql = readFileSync(path.join(folder, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex"), earlierChecksums: [] };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  await applyMigrations(databaseUrl, migrations);
}

/**
 * The printed steps, run as printed (an "Edit" step done by applyEditStep): the settings are given in `env`, and the
 * host's start is `start()`, which keeps the server and returns its base URL. Returns the problems the build step
 * printed.
 */
export async function followSteps(
  steps: string[],
  host: string,
  env: Record<string, string | undefined>,
  start: () => Promise<string>,
): Promise<string[]> {
  let build: string[] = [];
  // The settings the "Set" step names come from `env`, and LEADS_HOST_URL from the server `start` started.
  let settings = env;
  for (const step of steps) {
    if (step.startsWith("Set ")) continue;
    if (step.startsWith("Edit ")) {
      applyEditStep(step, host);
      continue;
    }
    if (step.endsWith(" start")) {
      settings = { ...env, LEADS_HOST_URL: await start() };
      continue;
    }
    const output = mustRun("sh", ["-c", step], host, settings);
    await settle();
    if (step.endsWith(" build")) build = problems(output);
  }
  return build;
}

/**
 * uninstallWithStep in the app's folder, then the app's build from scratch (the last build's route types still name
 * the module's routes): what the uninstall printed and the problems the build printed.
 */
export function uninstallAndBuild(
  app: string,
  manager: "npm" | "pnpm",
  env: Record<string, string | undefined>,
): { output: string; build: string[] } {
  const output = uninstallWithStep(app, env.DATABASE_URL!, env);
  rmSync(path.join(app, ".next"), { recursive: true, force: true });
  return { output, build: problems(mustRun(manager, ["run", "build"], app, env)) };
}

/** The cookie the fixtures' own sign-in gates let through (every other request goes to /login). */
export const SESSION = { cookie: "session=host-user" };

/** The host's own check by its package manager, through the host's running server at `url`. */
export function hostCheck(host: string, manager: "npm" | "pnpm", env: Record<string, string | undefined>, url: string) {
  // npm takes options after `--` as the script's; pnpm passes them on as they are.
  const args = manager === "npm" ? ["--", "--url", url] : ["--url", url];
  return run(manager, ["run", "--silent", "host:check", ...args], host, { ...env, LEADS_API_KEY: TEST_KEY });
}

/** What a host with its own gate showed before the install, and after the install, its steps and its start. */
export interface GatedInstall {
  installOutput: string;
  /** The host's files before the install and right after it (before its steps). */
  before: Map<string, string>;
  afterInstall: Map<string, string>;
  /** host:check through the host's server and its gate as it was. */
  gateFailure: ReturnType<typeof run>;
  checksBefore: ReturnType<typeof checks>;
  buildBefore: string[];
  buildAfter: string[];
  pageBefore: Awaited<ReturnType<typeof referralsPage>>;
  pageAfter: Awaited<ReturnType<typeof referralsPage>>;
  /** The host started by the printed steps, with the module. */
  server: ProcessGroup;
  baseUrl: string;
}

/**
 * A fixture host whose own gate sends every path without a session cookie to /login, with its packages and client
 * installed, taken through the install as its developer would: built (the layout's types come from the build),
 * checked and started; then the install, its first step, and host:check through the gate as it was; then the other
 * printed steps followed, the edit of the gate among them, and the host started again. `generated` is the host's
 * generated client, left out of its files.
 */
export async function installBehindGate(
  host: string,
  options: {
    manager: "npm" | "pnpm";
    env: Record<string, string | undefined>;
    generated: string;
  },
): Promise<GatedInstall> {
  const { manager, env, generated } = options;
  const buildBefore = problems(mustRun(manager, ["run", "build"], host, env));
  const checksBefore = checks(host, env, manager);
  const hostOnly = await startHost(host, manager, env, "/login");
  let seen: Pick<GatedInstall, "installOutput" | "before" | "afterInstall" | "gateFailure" | "pageBefore">;
  try {
    const pageBefore = await referralsPage(hostOnly.url, SESSION);
    const before = tree(host, generated);
    const installOutput = mustRun("npm", ["run", "--silent", "host:install", "--", host], ROOT);
    const afterInstall = tree(host, generated);
    mustRun("sh", ["-c", printedSteps(installOutput)[0]], host, env);
    seen = {
      installOutput,
      before,
      afterInstall,
      pageBefore,
      gateFailure: hostCheck(host, manager, env, hostOnly.url),
    };
  } finally {
    await hostOnly.group.stop();
  }

  const settings = { ...env, LEADS_API_KEY: TEST_KEY };
  let started: { group: ProcessGroup; url: string } | undefined;
  let pageAfter: GatedInstall["pageAfter"] | undefined;
  const buildAfter = await followSteps(printedSteps(seen.installOutput).slice(1), host, settings, async () => {
    started = await startHost(host, manager, settings, "/login");
    pageAfter = await referralsPage(started.url, SESSION);
    return started.url;
  });
  if (!started || !pageAfter) throw new Error(`the install printed no start step:\n${seen.installOutput}`);
  return { ...seen, checksBefore, buildBefore, buildAfter, pageAfter, server: started.group, baseUrl: started.url };
}

/** host:check through the host's gate as it was: exit 1, and the FAIL line naming the gate and its edit, `step`. */
export function expectGateFailure(result: ReturnType<typeof run>, gate: string, step: string): void {
  expect(result.status).toBe(1);
  const line = result.output.split("\n").find((l) => l.startsWith("FAIL gate:"));
  expect(line).toMatch(/^FAIL gate: GET \/api\/leads\/sources with the key was redirected \(307 to \/login\) /);
  expect(line).toContain(`by the host's ${gate}; ${step}`);
}

/** host:check through the host's server, its gate letting the module's paths through: exit 0. */
export function expectHostCheckPasses(
  host: string,
  manager: "npm" | "pnpm",
  env: Record<string, string | undefined>,
  baseUrl: string,
): void {
  const { status, output } = hostCheck(host, manager, env, baseUrl);
  expect({ status, output }).toEqual({ status: 0, output: expect.any(String) });
  expect(output.split("\n")).toContain(
    `ok   gate: GET /api/leads/sources with the key, /docs and /openapi.json answered through ${baseUrl}`,
  );
}

/**
 * A lead created through the host's server is listed by GET /api/leads and shown on the host's own page behind its
 * gate, which still sends a request without the session to /login.
 */
export async function expectLeadShownBehindGate(
  installed: Pick<GatedInstall, "baseUrl" | "server">,
  lead: { leadName: string; leadMobileNumber: string; referrer: string },
): Promise<void> {
  const { baseUrl, server } = installed;
  const created = await call("POST", "/api/leads", { baseUrl, body: lead }).catch((error: unknown) => {
    const cause = (error as { cause?: unknown }).cause;
    throw new Error(`${String(error)} (${String(cause)}); the host's server said:\n${server.output().slice(-3000)}`);
  });
  expect(created.status, created.text).toBe(201);
  const listed = await call("GET", `/api/leads?referrer=${created.body.lead.referrer.customerId}`, { baseUrl });
  expect(listed.body.leads.map((l: { leadName: string }) => l.leadName)).toEqual([lead.leadName]);
  const page = await referralsPage(baseUrl, SESSION);
  expect(page.status).toBe(200);
  expect(page.text).toContain(`${lead.leadName} (Pending) from ${lead.referrer}`);
  const gated = await fetch(`${baseUrl}/referrals`, { redirect: "manual" });
  expect({ status: gated.status, location: gated.headers.get("location") }).toEqual({
    status: 307,
    location: "/login",
  });
}

/**
 * `host:uninstall --yes` on the host's database, then the one step it prints, run as printed: the host's files are
 * then compared with those from before the install.
 */
export function uninstallWithStep(host: string, databaseUrl: string, env: Record<string, string | undefined>): string {
  const output = mustRun("npm", ["run", "--silent", "host:uninstall", "--", host, "--yes"], ROOT, {
    DATABASE_URL: databaseUrl,
  });
  const steps = printedSteps(output);
  expect(steps).toHaveLength(1);
  mustRun("sh", ["-c", steps[0]], host, env);
  return output;
}

/**
 * /docs through the host's server, its gate included: the page and the document answer 200 without a redirect, and
 * Chromium shows every operation of the document with nothing on its console.
 */
export async function expectDocsServed(baseUrl: string): Promise<void> {
  const docs = await fetch(`${baseUrl}/docs`, { redirect: "manual" });
  expect(docs.status).toBe(200);
  expect(await docs.text()).toContain("Lead Intake API documentation");
  expect((await fetch(`${baseUrl}/openapi.json`, { redirect: "manual" })).status).toBe(200);
  expect(await docsInChromium(baseUrl)).toEqual({ status: 200, operations: OPERATIONS.length, consoleErrors: [] });
}

/** A fixture host as its developer has it, before the install. */
export interface HostSetup {
  /** The folder under tests/fixtures, and an overlay folder whose files go on top. */
  fixture: string;
  overlay?: string;
  /** The app's folder and the folder of the schema's prisma/migrations, relative to the fixture's root. */
  app?: string;
  schemaHome?: string;
  manager: "npm" | "pnpm";
  /** The host's own commands in its root: its packages, then its client. */
  install: string[];
  generate: string[];
  /** The generated client, relative to the root, which tree() leaves out. */
  generated?: string;
}

/** A fixture host taken through the install and its printed steps. */
export interface HostInstall {
  /** The temporary folder holding the host, removed by stop(). */
  parent: string;
  root: string;
  app: string;
  /** The machine's settings and the host's DATABASE_URL (and pnpm on PATH), as the host's commands ran. */
  env: Record<string, string | undefined>;
  db: TestDatabase;
  installOutput: string;
  before: Map<string, string>;
  afterInstall: Map<string, string>;
  checksBefore: ReturnType<typeof checks>;
  buildBefore: string[];
  buildAfter: string[];
  /** The host's /referrals page before the install, and once the printed steps started it. */
  pageBefore: Awaited<ReturnType<typeof referralsPage>>;
  pageAfter: Awaited<ReturnType<typeof referralsPage>>;
  /** The host started by the printed steps, with the module. */
  server: ProcessGroup;
  baseUrl: string;
  /** The host started again with these settings on top of `env`. */
  start: (settings: Record<string, string | undefined>) => Promise<{ group: ProcessGroup; url: string }>;
  stop: () => Promise<void>;
}

/**
 * A copy of a fixture host as its developer has it (its packages, client and migrations; built, checked, its page
 * read, started and stopped), then `npm run host:install` and exactly the steps it prints (the settings given in the
 * environment, the host's start as the server) on the host's own database.
 */
export async function installIntoHost(setup: HostSetup): Promise<HostInstall> {
  const { manager, generated = "app/generated" } = setup;
  const parent = mkdtempSync(path.join(tmpdir(), `lead-intake-${setup.fixture}-`));
  const root = path.join(parent, setup.fixture);
  const app = path.join(root, setup.app ?? "");
  cpSync(path.join(FIXTURES, setup.fixture), root, { recursive: true });
  if (setup.overlay) cpSync(path.join(FIXTURES, setup.overlay), root, { recursive: true });
  const db = await createEmptyDatabase();
  const env = {
    ...MACHINE,
    DATABASE_URL: db.url,
    ...(manager === "pnpm" ? { PATH: pnpmOnPath(parent) } : {}),
  };
  const start = (settings: Record<string, string | undefined>) => startHost(app, manager, { ...env, ...settings });
  await applyHostMigrations(path.join(root, setup.schemaHome ?? setup.app ?? ""), db.url);
  mustRun(setup.install[0]!, setup.install.slice(1), root, env);
  mustRun(setup.generate[0]!, setup.generate.slice(1), root, env);
  // Built first, as after the install's steps: the host's typecheck reads the route types the build generates.
  const buildBefore = problems(mustRun(manager, ["run", "build"], app, env));
  const checksBefore = checks(app, env, manager);
  const hostOnly = await start({});
  let pageBefore: HostInstall["pageBefore"];
  try {
    pageBefore = await referralsPage(hostOnly.url);
  } finally {
    await hostOnly.group.stop();
  }
  rmSync(path.join(app, ".next"), { recursive: true, force: true });

  const before = tree(root, generated);
  const installOutput = mustRun("npm", ["run", "--silent", "host:install", "--", app], ROOT);
  const afterInstall = tree(root, generated);
  let started: { group: ProcessGroup; url: string; page: HostInstall["pageAfter"] } | undefined;
  const buildAfter = await followSteps(
    printedSteps(installOutput),
    app,
    { ...env, LEADS_API_KEY: TEST_KEY },
    async () => {
      const { group, url } = await start({ LEADS_API_KEY: TEST_KEY });
      started = { group, url, page: await referralsPage(url) };
      return url;
    },
  );
  if (!started) throw new Error(`the install printed no start step:\n${installOutput}`);
  const server = started.group;
  return {
    parent,
    root,
    app,
    env,
    db,
    installOutput,
    before,
    afterInstall,
    checksBefore,
    buildBefore,
    buildAfter,
    pageBefore,
    pageAfter: started.page,
    server,
    baseUrl: started.url,
    start,
    stop: async () => {
      await server.stop();
      await db.sql.end();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

/** tests/fixtures/host-app, with an overlay's files on top, taken through the install: npm, its schema in the app. */
export const installIntoHostApp = (overlay: string | undefined) =>
  installIntoHost({
    fixture: "host-app",
    overlay,
    manager: "npm",
    install: ["npm", "install"],
    generate: ["npx", "prisma", "generate"],
  });
