import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RETIRED, STATE_FILE } from "@/scripts/host/manifest";
import { CHECK_SCRIPT, startPreload } from "@/scripts/host/module-adds";
import type { TestDatabase } from "../helpers/db";
import { createEmptyDatabase } from "../helpers/host-install";
import { filesOf, hostCopy, ROOT, runHostScript, snapshot } from "../helpers/host-install-run";

/**
 * An upgrade from the module as it was before the preload and `host:check` had folders of their own (the commit
 * EARLIER of this repository, its install run from a copy of its tree): this checkout's install then leaves the host
 * exactly as a first install of this checkout does, with none of the earlier version's files or script values, and
 * its uninstall leaves the host as it was before either.
 */
const EARLIER = "fa0246a818e0aac2cd591d167d05de9d9e11c5f9";

let folders: ReturnType<typeof hostCopy>;
let fresh: ReturnType<typeof hostCopy>;
let db: TestDatabase;
let before: Map<string, string>;
let hostStart: string;
let upgrade: ReturnType<typeof runHostScript>;

const hostScripts = (host: string) =>
  (JSON.parse(readFileSync(path.join(host, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
const record = (host: string) =>
  JSON.parse(readFileSync(path.join(host, STATE_FILE), "utf8")) as {
    files: Record<string, string>;
    scripts: Record<string, { before: string | null; after: string }>;
  };

beforeAll(async () => {
  folders = hostCopy();
  before = filesOf(snapshot(folders.host));
  hostStart = hostScripts(folders.host).start!;
  const earlier = path.join(folders.parent, "earlier");
  mkdirSync(earlier);
  const tree = spawnSync("sh", ["-c", `git -C "$0" archive "$1" | tar -x -C "$2"`, ROOT, EARLIER, earlier], {
    encoding: "utf8",
  });
  expect(tree.status, tree.stderr).toBe(0);
  symlinkSync(path.join(ROOT, "node_modules"), path.join(earlier, "node_modules"));
  const installed = runHostScript("install", [folders.host], {}, earlier);
  expect(installed.status, installed.stderr).toBe(0);
  upgrade = runHostScript("install", [folders.host]);
  fresh = hostCopy();
  const first = runHostScript("install", [fresh.host]);
  expect(first.status, first.stderr).toBe(0);
  db = await createEmptyDatabase();
}, 180_000);

afterAll(async () => {
  await db?.sql.end();
  for (const copy of [folders, fresh]) if (copy) rmSync(copy.parent, { recursive: true, force: true });
});

describe("host:install over the module's earlier layout", { timeout: 120_000 }, () => {
  it("removes the earlier version's files and says how many", () => {
    expect(upgrade.status, upgrade.stderr).toBe(0);
    expect(upgrade.stdout).toMatch(new RegExp(`, ${RETIRED.files.length} removed \\(recorded in `));
    expect(RETIRED.files.filter((file) => existsSync(path.join(folders.host, file)))).toEqual([]);
    expect(existsSync(path.join(folders.host, "lib/runtime"))).toBe(false);
  });

  it("sets start and host:check anew, keeping the host's own start as what an uninstall puts back", () => {
    expect(hostScripts(folders.host)).toMatchObject({
      start: `${startPreload("")} ${hostStart}`,
      "host:check": CHECK_SCRIPT,
    });
    expect(record(folders.host).scripts).toEqual({
      start: { before: hostStart, after: `${startPreload("")} ${hostStart}` },
      "host:check": { before: null, after: CHECK_SCRIPT },
    });
  });

  it("leaves the host as a first install of this version does", () => {
    expect(snapshot(folders.host)).toEqual(snapshot(fresh.host));
  });

  it("host:uninstall --yes then leaves the host's files as they were before either install", () => {
    const result = runHostScript("uninstall", [folders.host, "--yes"], { DATABASE_URL: db.url });
    expect(result.status, result.stderr).toBe(0);
    expect(filesOf(snapshot(folders.host))).toEqual(before);
  });
});
