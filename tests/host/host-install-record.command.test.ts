import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATE_FILE } from "@/scripts/host/manifest";
import { CHECK_SCRIPT } from "@/scripts/host/module-adds";
import { expectRefused, hostCopy, runHostScript } from "../helpers/host-install-run";

/**
 * A record (.lead-intake-module.json) tampered with, or stale, after a real install: each entry naming what the
 * host has of its own (its models and fields, packages, scripts, next.config, files with their very SHA-256) is
 * refused in one sentence by a re-install and by an uninstall, and the host stays byte for byte as it was.
 */
const sha256 = (content: Buffer) => createHash("sha256").update(content).digest("hex");

let folders: ReturnType<typeof hostCopy>;
let installed: Record<string, any>;
const hostFile = (file: string) => readFileSync(path.join(folders.host, file));
const hostScripts = () =>
  (JSON.parse(hostFile("package.json").toString()) as { scripts: Record<string, string> }).scripts;

beforeAll(() => {
  folders = hostCopy();
  mkdirSync(folders.outside);
  const result = runHostScript("install", [folders.host]);
  expect(result.status, result.stderr).toBe(0);
  installed = JSON.parse(hostFile(STATE_FILE).toString()) as Record<string, any>;
}, 120_000);
afterAll(() => rmSync(folders.parent, { recursive: true, force: true }));

/** The installed record with `edit` made to a copy of it, written in the host. */
function tamper(edit: (record: Record<string, any>) => void): void {
  const record = structuredClone(installed);
  edit(record);
  writeFileSync(path.join(folders.host, STATE_FILE), `${JSON.stringify(record, null, 2)}\n`);
}

/** Both commands that act on the record refuse it, saying why in one sentence, and change nothing. */
function expectBothRefuse(sentence: string): void {
  const said = `${STATE_FILE}: ${sentence}; restore it from the host's version control; nothing was changed.`;
  const dirs = [folders.host, folders.outside];
  expect(expectRefused(dirs, "install", [folders.host], said)).toBe(`host:install: ${said}\n`);
  expect(expectRefused(dirs, "uninstall", [folders.host, "--yes"], said)).toBe(`host:uninstall: ${said}\n`);
}

const wholeModel = (model: string, own: string) =>
  `schema names ${model}, a model an install adds whole, but the host's ${model} has fields the module's has not (${own})`;

describe(
  "a record naming what the host has of its own is refused, and nothing is written",
  { timeout: 120_000 },
  () => {
    it.each([
      ["Customer", wholeModel("Customer", "loyaltyTier, introduced")],
      ["User", wholeModel("User", "email")],
      ["User.email", "schema names User.email, which is not a field the module's install adds"],
      ["Referral.followUpAt", "schema names Referral.followUpAt, which is not a field the module's install adds"],
    ])("the host's %s as a model or field the install added", (entry, sentence) => {
      tamper((record) => record.schema.push(entry));
      expectBothRefuse(sentence);
    });

    it.each(["next", "react"])("the host's package %s, at the host's own version", (name) => {
      const dependencies = (JSON.parse(hostFile("package.json").toString()) as { dependencies: Record<string, string> })
        .dependencies;
      tamper((record) => (record.packages[name] = dependencies[name]));
      expectBothRefuse(`packages names ${name}, which is not a package the module's install adds`);
    });

    it("the host's build script, as if the install had set it", () => {
      tamper((record) => (record.scripts.build = { before: null, after: hostScripts().build }));
      expectBothRefuse("scripts names build, which is not a script the module's install sets");
    });

    it("the host's dev script, to be put back as `rm -rf ~`", () => {
      tamper((record) => (record.scripts.dev = { before: "rm -rf ~", after: hostScripts().dev }));
      expectBothRefuse("scripts names dev, which is not a script the module's install sets");
    });

    it("the script host:check with another value than the install writes", () => {
      tamper((record) => (record.scripts["host:check"] = { before: null, after: `${CHECK_SCRIPT} && rm -rf ~` }));
      expectBothRefuse(`scripts["host:check"] is not the value the module's install writes`);
    });

    it.each(["app/page.tsx", "app/layout.tsx"])("the host's %s with its own SHA-256", (file) => {
      tamper((record) => (record.files[file] = sha256(hostFile(file))));
      expectBothRefuse(`files[${JSON.stringify(file)}] is not a file the module's install writes`);
    });

    it("a next.config that is the host's page, and a serverExternalPackages entry of the host's own", () => {
      tamper((record) => (record.nextConfig.file = "app/page.tsx"));
      expectBothRefuse("nextConfig.file is app/page.tsx, not a next.config the module's install edits");
      tamper((record) => record.nextConfig.packages.push("sharp"));
      expectBothRefuse(
        "nextConfig.packages names sharp, which the module's install does not add to serverExternalPackages",
      );
    });

    it("one of the module's packages at a range, as the host's own zod is", () => {
      tamper((record) => (record.packages.zod = "^3.24.2"));
      expectBothRefuse(`packages["zod"] is ^3.24.2, not an exact version as the module's install writes`);
    });

    it("the record as the install wrote it: a re-install changes nothing and the uninstall plans only the module's", () => {
      tamper(() => {});
      const again = runHostScript("install", [folders.host]);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout).toContain("- files: 0 added, 0 updated,");
      const plan = runHostScript("uninstall", [folders.host]);
      expect(plan.status, plan.stderr).toBe(0);
      expect(plan.stdout).toContain("Nothing was changed; run again with --yes to do it.");
    });
  },
);
