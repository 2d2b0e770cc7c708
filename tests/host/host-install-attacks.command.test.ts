import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HostFolder, Refusal } from "@/scripts/host/host-folder";
import { STATE_FILE } from "@/scripts/host/manifest";
import { expectRefused as expectRefusedIn, hostCopy, ROOT, runHostScript, snapshot } from "../helpers/host-install-run";

/**
 * `host:install` and `host:uninstall` on a host folder made by an attacker: links out of the folder, a record
 * naming files outside it, a folder or a FIFO where a file should be, files that do not parse. Each is refused in one
 * sentence, exit 1, before anything is written: the host folder and everything outside it stay as they were.
 */
const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

let folders: ReturnType<typeof hostCopy> | undefined;
afterEach(() => {
  if (folders) rmSync(folders.parent, { recursive: true, force: true });
  folders = undefined;
});

/** A copy of a fixture host with a folder beside it; `outside` holds a victim file. */
function arrange(fixture?: string) {
  folders = hostCopy(fixture);
  mkdirSync(folders.outside);
  writeFileSync(path.join(folders.outside, "victim.txt"), "not the module's\n");
  return folders;
}

/** Runs the script and asserts the refusal, with the host folder and everything outside it unchanged. */
function expectRefused(script: "install" | "uninstall", args: string[], sentence: string | RegExp) {
  return expectRefusedIn([folders!.host, folders!.outside], script, args, sentence);
}

/** Moves a host file out of the folder and leaves a link to it in its place. */
function linkOut(relative: string) {
  const { host, outside } = folders!;
  const target = path.join(outside, relative.replaceAll("/", "_"));
  renameSync(path.join(host, relative), target);
  symlinkSync(target, path.join(host, relative));
  return target;
}

const install = () => {
  const result = runHostScript("install", [folders!.host]);
  expect(result.status, result.stderr).toBe(0);
};

// Each case runs the scripts as processes (a few seconds each, more on a busy machine).
describe("host:install refuses a host folder that would make it read or write outside it", { timeout: 120_000 }, () => {
  it("a dangling link where the module writes a file (instrumentation.ts)", () => {
    const { host, outside } = arrange();
    symlinkSync(path.join(outside, "instrumentation.ts"), path.join(host, "instrumentation.ts"));
    expectRefused("install", [host], "host:install: instrumentation.ts is a link to nothing");
    expect(existsSync(path.join(outside, "instrumentation.ts"))).toBe(false);
  });

  it("a dangling proxy.ts link, the host's own file: left as it is, and nothing written through it", () => {
    const { host, outside } = arrange();
    symlinkSync(path.join(outside, "proxy.ts"), path.join(host, "proxy.ts"));
    const outsideBefore = snapshot(outside);
    install();
    expect(snapshot(outside)).toEqual(outsideBefore);
    expect(snapshot(host).get("proxy.ts")).toBe(`link ${path.join(outside, "proxy.ts")}`);
  });

  it("a file of the host's own where the module has one: kept and named, and the next install runs too", () => {
    const { host } = arrange();
    writeFileSync(path.join(host, "instrumentation.ts"), "export function register() {}\n");
    for (let run = 0; run < 2; run++) {
      const result = runHostScript("install", [host]);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain("- kept, edited by the host (compare with the module's): instrumentation.ts");
    }
    expect(readFileSync(path.join(host, "instrumentation.ts"), "utf8")).toBe("export function register() {}\n");
  });

  it("a lib/ folder linked outside", () => {
    const { host, outside } = arrange();
    linkOut("lib");
    expectRefused("install", [host], `lib is a link to ${path.join(outside, "lib")}, outside the host folder`);
  });

  it.each(["package.json", "prisma/schema.prisma", STATE_FILE])("%s linked outside", (file) => {
    const { host, outside } = arrange();
    if (file === STATE_FILE) writeFileSync(path.join(host, file), JSON.stringify({ version: "1.0.0", files: {} }));
    const target = linkOut(file);
    expectRefused("install", [host], `${file} is a link to ${target}, outside the host folder`);
    expect(existsSync(path.join(outside, "victim.txt"))).toBe(true);
  });

  it("next.config.mjs linked outside", () => {
    const { host } = arrange();
    renameSync(path.join(host, "next.config.ts"), path.join(host, "next.config.mjs"));
    const target = linkOut("next.config.mjs");
    expectRefused("install", [host], `next.config.mjs is a link to ${target}, outside the host folder`);
  });

  it("a record naming a file outside the host with its digest: re-install and uninstall leave it", () => {
    const { host, outside } = arrange();
    install();
    const record = JSON.parse(readFileSync(path.join(host, STATE_FILE), "utf8"));
    record.files["../outside/victim.txt"] = sha256(readFileSync(path.join(outside, "victim.txt")));
    writeFileSync(path.join(host, STATE_FILE), JSON.stringify(record));
    const said = `${STATE_FILE}: files["../outside/victim.txt"] is not a path inside the host folder`;
    expectRefused("install", [host], said);
    expectRefused("uninstall", [host, "--yes"], said);
  });

  it("uninstall from a clone older than the installed module: refused, as it would not know all of its objects", () => {
    const { host } = arrange();
    install();
    const record = JSON.parse(readFileSync(path.join(host, STATE_FILE), "utf8"));
    writeFileSync(path.join(host, STATE_FILE), JSON.stringify({ ...record, version: "99.0.0" }));
    expectRefused("uninstall", [host, "--yes"], /the host has the module's 99\.0\.0, newer than this clone's \d/);
  });

  it("uninstall after the host linked lib/ out: the files there stay", () => {
    const { host, outside } = arrange();
    install();
    linkOut("lib");
    expectRefused(
      "uninstall",
      [host, "--yes"],
      `lib is a link to ${path.join(outside, "lib")}, outside the host folder`,
    );
  });
});

describe(
  "host:install into an app of an npm workspace reads and writes nothing outside the workspace",
  { timeout: 120_000 },
  () => {
    const MONOREPO = path.join(ROOT, "tests/fixtures/host-monorepo");
    const app = () => path.join(folders!.host, "apps/crm");

    it.each(["packages/db/prisma/schema.prisma", "package-lock.json"])("the workspace's %s linked outside", (file) => {
      arrange(MONOREPO);
      const target = linkOut(file);
      expectRefused("install", [app()], `${file} is a link to ${target}, outside the host folder`);
    });

    it("a record naming a file outside the workspace with its digest: re-install and uninstall leave it", () => {
      const { outside } = arrange(MONOREPO);
      const result = runHostScript("install", [app()]);
      expect(result.status, result.stderr).toBe(0);
      const record = JSON.parse(readFileSync(path.join(app(), STATE_FILE), "utf8"));
      record.files["../../../outside/victim.txt"] = sha256(readFileSync(path.join(outside, "victim.txt")));
      writeFileSync(path.join(app(), STATE_FILE), JSON.stringify(record));
      const said = `${STATE_FILE}: files["../../../outside/victim.txt"] is not a path inside the host folder`;
      expectRefused("install", [app()], said);
      expectRefused("uninstall", [app(), "--yes"], said);
    });
  },
);

describe(
  "host:install refuses what is not a regular file, and what does not parse, before writing anything",
  {
    timeout: 120_000,
  },
  () => {
    it.each([
      ["a folder", (file: string) => mkdirSync(file)],
      ["a FIFO", (file: string) => execFileSync("mkfifo", [file])],
    ])("next.config.mjs that is %s", (_, make) => {
      const { host } = arrange();
      rmSync(path.join(host, "next.config.ts"));
      make(path.join(host, "next.config.mjs"));
      expectRefused("install", [host], "host:install: next.config.mjs is not a regular file");
    });

    it.each([
      ["package.json", "{ not json", /host:install: package\.json is not valid JSON \(.+\); nothing/],
      [
        "package.json",
        '{"dependencies":{"next":"16.4.3"},"scripts":{"build":5}}',
        "package.json: scripts.build is 5, not a string",
      ],
      ["package.json", "[]", "host:install: package.json is not a JSON object"],
      [
        "prisma/schema.prisma",
        "model {{ broken",
        /host:install: prisma\/schema\.prisma cannot be read as a Prisma schema \(.+\)/,
      ],
      [STATE_FILE, "{", `host:install: ${STATE_FILE} is not valid JSON`],
      [STATE_FILE, '{"version":"1","files":{"a.ts":"short"}}', `${STATE_FILE}: files["a.ts"] is not a SHA-256`],
    ])("%s holding %s", (file, content, sentence) => {
      const { host } = arrange();
      writeFileSync(path.join(host, file), content);
      expectRefused("install", [host], sentence);
    });
  },
);

describe("the host folder's staged writes", () => {
  it("a failure part way puts back what was written and says which file failed", () => {
    const { host } = arrange();
    const before = snapshot(host);
    const folder = new HostFolder(host);
    folder.stage("app/page.tsx", "changed\n");
    folder.stage("new/file.ts", "new\n");
    folder.stage("blocked/file.ts", "new\n");
    // A file where the folder must go, after the checks: the third write fails.
    writeFileSync(path.join(host, "blocked"), "");
    const failure = (() => {
      try {
        folder.apply();
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(Refusal);
    expect((failure as Error).message).toBe("blocked/file.ts could not be written (EEXIST)");
    rmSync(path.join(host, "blocked"));
    expect(snapshot(host)).toEqual(before);
  });

  it("a folder in the way of the last write: the update, the removal and the new file before it all put back", () => {
    const { host } = arrange();
    const removed = path.join(host, "next.config.ts");
    chmodSync(removed, 0o600);
    const before = snapshot(host);
    const folder = new HostFolder(host);
    folder.stage("app/page.tsx", "changed\n");
    folder.stage("next.config.ts", null);
    folder.stage("lib/new/file.ts", "new\n");
    folder.stage("app/later.ts", "later\n");
    // A folder where the fourth file goes, after the checks: that write fails.
    mkdirSync(path.join(host, "app/later.ts"));
    expect(() => folder.apply()).toThrow(new Refusal("app/later.ts could not be written (EISDIR)"));
    expect(existsSync(path.join(host, "app/later.ts"))).toBe(true);
    rmSync(path.join(host, "app/later.ts"), { recursive: true });
    expect(snapshot(host)).toEqual(before);
    expect(statSync(removed).mode & 0o777).toBe(0o600);
  });
});
