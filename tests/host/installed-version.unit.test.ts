import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readHostPackage } from "@/scripts/host/host-package";
import { installedVersion, pnpmLocked } from "@/scripts/host/installed-version";
import { planPackages } from "@/scripts/host/plan-packages";
import { readHostProject } from "@/scripts/host/project-info";
import { openHost } from "@/scripts/host/workspace";

/** The versions `host:install` reads of a host (scripts/host/installed-version.ts): installed, locked, then range. */
const root = mkdtempSync(path.join(tmpdir(), "installed-version-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let count = 0;
/** A folder of these files, opened as the install opens a host (`app` names the app's folder in a workspace). */
function folderOf(files: Record<string, string>, app = "") {
  const folder = path.join(root, String(count++));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    writeFileSync(path.join(folder, file), text);
  }
  return openHost(path.join(folder, app));
}

const json = (value: unknown) => JSON.stringify(value);
/**
 * create-t3-app 7.40's ranges, whose floors lack what the module needs (zod 3.24 has no "zod/v4", Prisma 6.6 has
 * driver adapters only as a preview feature) while what they install today (zod 3.25.76, Prisma 6.19.3) has it.
 */
const t3 = {
  "package.json": json({
    dependencies: { next: "^15.2.3", "@prisma/client": "^6.6.0", zod: "^3.24.2" },
    devDependencies: { prisma: "^6.6.0" },
  }),
  "tsconfig.json": json({ compilerOptions: { paths: { "~/*": ["./src/*"] } } }),
  "src/app/layout.tsx": "",
  // create-t3-app's generator, without previewFeatures.
  "prisma/schema.prisma":
    'generator client {\n  provider = "prisma-client-js"\n  output   = "../generated/prisma"\n}\n',
};
/** package-lock.json pinning these versions, as npm writes it. */
const npmLock = (versions: Record<string, string>) =>
  json({
    lockfileVersion: 3,
    packages: Object.fromEntries(
      Object.entries(versions).map(([name, version]) => [`node_modules/${name}`, { version }]),
    ),
  });
const PNPM_9 = `lockfileVersion: '9.0'

importers:

  .:
    dependencies:
      '@prisma/client':
        specifier: ^6.6.0
        version: 6.19.0(prisma@6.19.0(typescript@5.9.3))(typescript@5.9.3)
      zod:
        specifier: ^3.24.2
        version: 3.25.76

packages:

  zod@3.25.76:
    resolution: {integrity: sha512-x}
`;

describe("the versions a host runs on", () => {
  it("create-t3-app's zod ^3.24.2 is the 3.25.76 in node_modules, not its range's floor", () => {
    const host = folderOf({
      ...t3,
      "node_modules/zod/package.json": json({ name: "zod", version: "3.25.76" }),
      "node_modules/prisma/package.json": json({ name: "prisma", version: "6.19.3" }),
    });
    expect(readHostProject(host).majors).toMatchObject({ prisma: 6, prismaMinor: 19, zod: { major: 3, minor: 25 } });
  });

  it("without node_modules, the version package-lock.json or pnpm-lock.yaml pins", () => {
    // Only the client locked: its 6.19, not the floor of prisma's ^6.6.0, though prisma is read first.
    const npm = folderOf({ ...t3, "package-lock.json": npmLock({ zod: "3.25.76", "@prisma/client": "6.19.3" }) });
    expect(readHostProject(npm).majors).toMatchObject({ next: 15, prismaMinor: 19, zod: { major: 3, minor: 25 } });
    const pnpm = folderOf({ ...t3, "pnpm-lock.yaml": PNPM_9 });
    expect(readHostProject(pnpm).majors).toMatchObject({ prisma: 6, prismaMinor: 19, zod: { major: 3, minor: 25 } });
  });

  it("the floor of the range only where nothing is installed or locked, and refused below zod 3.25", () => {
    expect(() => readHostProject(folderOf(t3))).toThrow(
      'the host has zod 3.24; the module needs zod 3.25 or later, or 4 (it imports "zod/v4")',
    );
  });

  it("t3's ranges locked at zod 3.25 and Prisma 6.19: no preview feature, and the host's ranges kept", () => {
    const locked = { next: "15.5.29", zod: "3.25.76", prisma: "6.19.3", "@prisma/client": "6.19.3" };
    const host = folderOf({ ...t3, "package-lock.json": npmLock(locked) });
    const project = readHostProject(host);
    expect(project.majors).toEqual({ next: 15, prisma: 6, prismaMinor: 19, zod: { major: 3, minor: 25 } });
    const { json: planned, notes } = planPackages(readHostPackage(host), project, {});
    expect({ ...planned.dependencies, ...planned.devDependencies }).toMatchObject({
      zod: "^3.24.2",
      prisma: "^6.6.0",
      "@prisma/client": "^6.6.0",
      "@prisma/adapter-pg": "^6.6.0",
      "@prisma/driver-adapter-utils": "^6.6.0",
      "@prisma/instrumentation": "^6.6.0",
    });
    expect(notes).toContainEqual(
      expect.stringMatching(/^kept the host's zod@\^3\.24\.2 \(the module is tested with 4\./),
    );
    // The same ranges locked at Prisma 6.6: the preview feature the module's adapter needs there.
    const old = folderOf({
      ...t3,
      "package-lock.json": npmLock({ ...locked, prisma: "6.6.0", "@prisma/client": "6.6.0" }),
    });
    expect(() => readHostProject(old)).toThrow(
      "the host runs Prisma 6.6, where the module's driver adapter is a preview",
    );
  });

  it("in a workspace: the app's own node_modules first, then the hoisted one, then the root's lockfile", () => {
    const host = folderOf(
      {
        "package.json": json({ workspaces: ["apps/*"] }),
        "package-lock.json": json({
          packages: {
            "apps/web/node_modules/next": { version: "16.1.0" },
            "node_modules/next": { version: "15.5.0" },
            "node_modules/prisma": { version: "7.2.0" },
          },
        }),
        "node_modules/zod/package.json": json({ version: "4.1.12" }),
        "apps/web/node_modules/zod/package.json": json({ version: "3.25.1" }),
        "apps/web/package.json": json({}),
      },
      "apps/web",
    );
    const ranges = { next: "^15.0.0", prisma: "^7.0.0", zod: "^3.0.0", react: "^19.0.0" };
    expect(installedVersion(host, "", ranges, "zod")).toEqual({ major: 3, minor: 25 });
    expect(installedVersion(host, "", ranges, "next")).toEqual({ major: 16, minor: 1 });
    expect(installedVersion(host, "", ranges, "prisma")).toEqual({ major: 7, minor: 2 });
    expect(installedVersion(host, "", ranges, "react")).toEqual({ major: 19, minor: 0 });
    expect(installedVersion(host, "", ranges, "typescript")).toBeUndefined();
  });

  it("pnpm-lock.yaml of lockfile 5, 6 and 9, by importer", () => {
    expect(pnpmLocked(PNPM_9, ".", "zod")).toBe("3.25.76");
    expect(pnpmLocked(PNPM_9, ".", "@prisma/client")).toMatch(/^6\.19\.0\(/);
    expect(pnpmLocked(PNPM_9, "apps/web", "zod")).toBeUndefined();
    const v5 = "lockfileVersion: 5.4\n\nspecifiers:\n  zod: ^3.24.2\n\ndependencies:\n  zod: 3.25.76\n";
    expect(pnpmLocked(v5, ".", "zod")).toBe("3.25.76");
    const v6 =
      "lockfileVersion: '6.0'\n\nimporters:\n\n  apps/web:\n    devDependencies:\n      next:\n" +
      "        specifier: ^15.2.3\n        version: 15.5.4(react@19.1.0)\n\n  packages/db:\n    dependencies:\n" +
      "      prisma:\n        specifier: ^6.6.0\n        version: 6.16.2\n";
    expect(pnpmLocked(v6, "apps/web", "next")).toBe("15.5.4(react@19.1.0)");
    expect(pnpmLocked(v6, "apps/web", "prisma")).toBeUndefined();
    expect(pnpmLocked(v6, "packages/db", "prisma")).toBe("6.16.2");
  });
});
