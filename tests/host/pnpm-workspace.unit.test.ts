import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pnpmWorkspacePatterns } from "@/scripts/host/pnpm-workspace";
import { readHostProject } from "@/scripts/host/project-info";
import { openHost, workspaceFolders } from "@/scripts/host/workspace";
import { hostCopy, runHostScript, snapshot } from "../helpers/host-install-run";

/**
 * pnpm workspaces found as npm's (scripts/host/workspace.ts, scripts/host/pnpm-workspace.ts), and yarn and bun hosts
 * refused by `host:install` before it writes anything.
 */
const parents: string[] = [];
afterAll(() => {
  for (const parent of parents) rmSync(parent, { recursive: true, force: true });
});

function workspaceOf(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), "pnpm-workspace-"));
  parents.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const json = (value: unknown) => JSON.stringify(value);
/** Turborepo's layout: the app in apps/web with src/, the schema in packages/database, pnpm at the root. */
const turborepo = {
  "package.json": json({ name: "turbo", private: true, packageManager: "pnpm@10.12.1" }),
  "pnpm-workspace.yaml": 'packages:\n  - "apps/*"\n  - "packages/*" # shared\n  - "!apps/legacy"\n',
  "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
  "apps/web/package.json": json({ dependencies: { "@repo/database": "workspace:*", next: "^15.5.0" } }),
  "apps/web/tsconfig.json": json({ compilerOptions: { paths: { "@/*": ["./src/*"] } } }),
  "apps/web/src/app/layout.tsx": "",
  "apps/legacy/package.json": json({ dependencies: { next: "^15.5.0" } }),
  "packages/database/package.json": json({ name: "@repo/database", dependencies: { "@prisma/client": "^6.16.0" } }),
  "packages/database/prisma/schema.prisma": 'generator client {\n  provider = "prisma-client-js"\n}\n',
  "packages/ui/package.json": json({ name: "@repo/ui" }),
};

describe("a pnpm workspace", () => {
  it("Turborepo's layout: the root by pnpm-workspace.yaml, the schema in the package the app depends on", () => {
    const root = workspaceOf(turborepo);
    const host = openHost(path.join(root, "apps/web"));
    expect(host.toBoundary).toBe("../../");
    expect(workspaceFolders(host)).toEqual(["../../apps/web", "../../packages/database", "../../packages/ui"]);
    expect(readHostProject(host)).toMatchObject({
      sourceRoot: "src/",
      schemaPackage: { name: "@repo/database", folder: "../../packages/database" },
      schemaFiles: ["../../packages/database/prisma/schema.prisma"],
      migrations: "../../packages/database/prisma/migrations",
      packageManager: "pnpm",
    });
  });

  it("an app a `!` pattern leaves out, or none names, is a host of its own", () => {
    const root = workspaceOf({ ...turborepo, "tools/web/package.json": "{}" });
    expect(openHost(path.join(root, "apps/legacy")).toBoundary).toBe("");
    expect(openHost(path.join(root, "tools/web")).toBoundary).toBe("");
  });

  it("`**` globs, and package.json's object form of workspaces", () => {
    const deep = workspaceOf({ "pnpm-workspace.yaml": "packages: ['apps/**']\n", "apps/team/crm/package.json": "{}" });
    expect(openHost(path.join(deep, "apps/team/crm")).toBoundary).toBe("../../../");
    const object = workspaceOf({
      "package.json": json({ workspaces: { packages: ["apps/*"] } }),
      "apps/crm/package.json": "{}",
    });
    expect(openHost(path.join(object, "apps/crm")).toBoundary).toBe("../../");
  });

  it("reads pnpm-workspace.yaml's packages in block and flow form, quoted or not, comments left out", () => {
    expect(pnpmWorkspacePatterns("packages:\n  - apps/*\n  - 'packages/*'  # libs\n\ncatalog:\n  zod: ^4\n")).toEqual([
      "apps/*",
      "packages/*",
    ]);
    expect(pnpmWorkspacePatterns('packages: ["apps/*", packages/*]\n')).toEqual(["apps/*", "packages/*"]);
    expect(pnpmWorkspacePatterns("onlyBuiltDependencies:\n  - prisma\n")).toEqual([]);
  });
});

describe("yarn and bun hosts", { timeout: 60_000 }, () => {
  it.each([
    ["yarn.lock", "yarn.lock"],
    ["bun.lock", "bun.lock"],
    ["bun.lockb", "bun.lockb"],
  ])("%s: refused in one sentence, nothing written", (lockfile, named) => {
    const folders = hostCopy();
    parents.push(folders.parent);
    rmSync(path.join(folders.host, "package-lock.json"), { force: true });
    writeFileSync(path.join(folders.host, lockfile), "");
    const before = snapshot(folders.host);
    const result = runHostScript("install", [folders.host]);
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      status: 1,
      stdout: "",
      stderr: `host:install: the host uses ${named}; the install supports npm and pnpm; nothing was changed.\n`,
    });
    expect(snapshot(folders.host)).toEqual(before);
  });
});
