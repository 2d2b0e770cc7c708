import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HostFolder } from "@/scripts/host/host-folder";
import { planNextTypes } from "@/scripts/host/next-types";

/** What the uninstall does with Next's generated types (scripts/host/next-types.ts), on a folder of real files. */
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function appWith(files: string[]): string {
  const root = mkdtempSync(path.join(tmpdir(), "next-types-"));
  folders.push(root);
  for (const file of files) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), `// ${file}\n`);
  }
  return root;
}

describe("Next's generated types at an uninstall", () => {
  it("removes .next/types and .next/dev/types, which name the module's routes, and nothing else of .next", () => {
    const root = appWith([
      ".next/types/validator.ts",
      ".next/types/app/api/leads/route.ts",
      ".next/dev/types/validator.ts",
      ".next/dev/types/routes.d.ts",
      ".next/dev/cache/kept.json",
      ".next/server/app/page.js",
    ]);
    const host = new HostFolder(root);
    const plan = planNextTypes(host);
    expect(plan.lines).toEqual([
      "- Next's generated types: .next/types, .next/dev/types removed (next build and next dev write them again)",
    ]);
    expect(plan.files).toHaveLength(4);
    expect(existsSync(path.join(root, ".next/dev/types/validator.ts")), "staged, not yet applied").toBe(true);
    host.apply();
    for (const file of plan.files) host.pruneEmptyFolders(file);
    expect(existsSync(path.join(root, ".next/types"))).toBe(false);
    expect(existsSync(path.join(root, ".next/dev/types"))).toBe(false);
    expect(existsSync(path.join(root, ".next/dev/cache/kept.json"))).toBe(true);
    expect(existsSync(path.join(root, ".next/server/app/page.js"))).toBe(true);
  });

  it("says nothing and changes nothing where the host has no generated types", () => {
    const root = appWith([".next/server/app/page.js"]);
    expect(planNextTypes(new HostFolder(root))).toEqual({ files: [], lines: [] });
  });
});
