import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { validate } from "@prisma/prisma-schema-wasm";
import { afterEach, describe, expect, it } from "vitest";
import { expectRefused, hostCopy, ROOT, runHostScript } from "../helpers/host-install-run";

/**
 * The install's last check, before anything is written (scripts/host/check-plan.ts): a host where the planned schema
 * would not validate with Prisma's own validator, or where the client re-export would not resolve, is refused in one
 * sentence, exit 1, with the host byte for byte as before, where it would have been written and said to be done.
 */
const FIXTURES = path.join(ROOT, "tests/fixtures");

let folders: ReturnType<typeof hostCopy> | undefined;
afterEach(() => {
  if (folders) rmSync(folders.parent, { recursive: true, force: true });
  folders = undefined;
});

/** A copy of a fixture host; `edit` changes its files (paths from its folder). */
function arrange(fixture: string, edit: (file: (relative: string) => string) => void) {
  folders = hostCopy(path.join(FIXTURES, fixture));
  const { host } = folders;
  edit((relative) => path.join(host, relative));
  return host;
}

/** The module's own model, as a host's file of its own might already hold it: the install would add a second. */
const OWN_MODEL = "model LeadSourceName {\n  id   Int    @id\n  name String\n}\n";

describe("host:install validates the schema it would write as Prisma reads it", { timeout: 120_000 }, () => {
  it("a model in a subfolder of the schema folder, which Prisma reads and the merge does not: a second one", () => {
    const host = arrange("host-src-app", (file) => {
      mkdirSync(file("prisma/schema/modules"));
      writeFileSync(file("prisma/schema/modules/names.prisma"), OWN_MODEL);
    });
    expectRefused(
      [host],
      "install",
      [host],
      'host:install: the schema the install would write (prisma/schema) is not valid for Prisma: The model "LeadSourceName" ' +
        "cannot be defined because a model with that name already exists (prisma/schema/lead_intake.prisma:4); " +
        "Prisma also reads prisma/schema/modules/names.prisma, which the install does not merge into (a subfolder " +
        "or a linked folder): move its models into a file directly in prisma/schema; nothing was changed.",
    );
  });

  it("a linked folder in the schema folder, followed as Prisma follows it: the same", () => {
    const host = arrange("host-src-app", (file) => {
      mkdirSync(file("prisma/shared"));
      writeFileSync(file("prisma/shared/names.prisma"), OWN_MODEL);
      symlinkSync("../shared", file("prisma/schema/shared"));
    });
    expectRefused(
      [host],
      "install",
      [host],
      /: The model "LeadSourceName" cannot be defined because a model with that name already exists .*; Prisma also reads prisma\/shared\/names\.prisma, which the install does not merge into/,
    );
  });

  it("the dry run checks it too, and says so the same way", () => {
    const host = arrange("host-src-app", (file) => {
      mkdirSync(file("prisma/schema/modules"));
      writeFileSync(file("prisma/schema/modules/names.prisma"), OWN_MODEL);
    });
    expectRefused([host], "install", ["--dry-run", host], /is not valid for Prisma: The model "LeadSourceName"/);
  });

  it("a Prisma 6 host, whose datasource has its url, passes: the url lines are left out of the validation only", () => {
    const host = arrange("host-t3-app", () => {});
    const result = runHostScript("install", ["--dry-run", host]);
    expect(result.status, result.stderr).toBe(0);
    // As it is, Prisma 7's validator refuses the url that Prisma 6 requires.
    const schema = readFileSync(path.join(host, "prisma/schema.prisma"), "utf8");
    expect(() => validate(JSON.stringify({ prismaSchema: [["schema.prisma", schema]], noColor: true }))).toThrow(
      /datasource property `url` is no longer supported/,
    );
  });
});

describe("host:install checks that the client re-export resolves in the host", { timeout: 120_000 }, () => {
  it("a pnpm workspace whose schema package generates @prisma/client, which the app does not list", () => {
    arrange("host-monorepo", (file) => {
      rmSync(file("package-lock.json"));
      writeFileSync(file("pnpm-workspace.yaml"), 'packages:\n  - "apps/*"\n  - "packages/*"\n');
      writeFileSync(file("pnpm-lock.yaml"), "lockfileVersion: '9.0'\n");
      const schema = file("packages/db/prisma/schema.prisma");
      writeFileSync(
        schema,
        readFileSync(schema, "utf8")
          .replace('provider = "prisma-client"', 'provider = "prisma-client-js"')
          .replace(/\n\s*output\s*=.*/, ""),
      );
    });
    const workspace = folders!.host;
    expectRefused(
      [workspace],
      "install",
      [path.join(workspace, "apps/crm")],
      'host:install: lib/generated/prisma/client.ts would re-export "@prisma/client", which the app cannot import: ' +
        "its package.json does not list it, and pnpm links only a package's own dependencies; add @prisma/client " +
        "to the app's dependencies at @crm/db's version, or give the generator of " +
        "../../packages/db/prisma/schema.prisma an output; nothing was changed.",
    );
  });

  it("a tsconfig.json path that takes the alias of the generated client elsewhere (the longest match wins)", () => {
    const host = arrange("host-app", (file) => {
      const tsconfig = file("tsconfig.json");
      writeFileSync(
        tsconfig,
        readFileSync(tsconfig, "utf8").replace('"@/*": ["./*"]', '"@/app/*": ["./src/app/*"], "@/*": ["./*"]'),
      );
    });
    expectRefused(
      [host],
      "install",
      [host],
      'host:install: lib/generated/prisma/client.ts would re-export "@/app/generated/prisma/client", which does not ' +
        "resolve in the host, while Prisma generates the client at app/generated/prisma/client.ts: correct " +
        'tsconfig.json\'s paths so that "@/*" to ./* is the entry that applies to it (TypeScript takes the longest ' +
        "one that matches); nothing was changed.",
    );
  });

  it("a path that takes the module's own client import elsewhere", () => {
    const host = arrange("host-app", (file) => {
      const tsconfig = file("tsconfig.json");
      writeFileSync(
        tsconfig,
        readFileSync(tsconfig, "utf8").replace('"@/*": ["./*"]', '"@/lib/generated/*": ["./vendor/*"], "@/*": ["./*"]'),
      );
    });
    expectRefused(
      [host],
      "install",
      [host],
      'host:install: the module\'s import "@/lib/generated/prisma/client" does not resolve in the host, where the ' +
        "install puts lib/generated/prisma/client.ts: correct tsconfig.json's paths",
    );
  });
});
