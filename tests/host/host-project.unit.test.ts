import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HostFolder } from "@/scripts/host/host-folder";
import { withHostAlias } from "@/scripts/host/imports";
import {
  clientImportOf,
  hostPathOf,
  prismaConfigPaths,
  readHostProject,
  type HostProject,
} from "@/scripts/host/project-info";
import { mergeSchemaFiles } from "@/scripts/host/schema-files";
import { openHost } from "@/scripts/host/workspace";

/**
 * What `host:install` reads of a host (scripts/host/project-info.ts) for each shape a host comes in, and the import
 * rewrite of the files it copies (scripts/host/imports.ts).
 */
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A host of these files; `app` names the app's folder in it (a workspace's `apps/crm`), opened as the install does. */
function hostWith(files: Record<string, string>, app?: string): HostFolder {
  const root = mkdtempSync(path.join(tmpdir(), "host-project-"));
  folders.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return app ? openHost(path.join(root, app)) : new HostFolder(root);
}

const tsconfig = (paths: Record<string, string[]>, baseUrl?: string) =>
  `{
  // as generators write it, with comments
  "compilerOptions": { ${baseUrl ? `"baseUrl": "${baseUrl}",` : ""} "paths": ${JSON.stringify(paths)} },
}`;
const pkg = (dependencies: Record<string, string>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ dependencies, ...extra });
const GENERATOR = 'generator client {\n  provider = "prisma-client"\n  output   = "../app/generated/prisma"\n}\n';

describe("reading a host", () => {
  const workspace = {
    "package.json": JSON.stringify({ name: "crm", workspaces: ["apps/*", "packages/*"] }),
    "package-lock.json": "{}",
    "apps/crm/package.json": pkg({ "@crm/db": "*", next: "16.4.3" }),
    "apps/crm/tsconfig.json": tsconfig({ "@/*": ["./*"] }),
    "apps/crm/app/layout.tsx": "",
    "packages/db/package.json": pkg({ "@prisma/client": "^7.10.0" }, { name: "@crm/db" }),
    "packages/db/prisma.config.ts":
      'import { defineConfig } from "prisma/config";\n' +
      'export default defineConfig({ schema: "prisma/schema.prisma", migrations: { path: "prisma/migrations" } });\n',
    "packages/db/prisma/schema.prisma": GENERATOR.replace("../app/generated/prisma", "../src/generated/prisma"),
    // A package the app does not depend on: its schema is not the app's.
    "packages/other/package.json": pkg({}, { name: "@crm/other" }),
    "packages/other/prisma/schema.prisma": GENERATOR,
  };

  it("an app in an npm workspace: the schema in the workspace package it depends on, npm at the root", () => {
    const host = hostWith(workspace, "apps/crm");
    expect(host.toBoundary).toBe("../../");
    const project = readHostProject(host);
    expect(project).toEqual({
      alias: "@",
      sourceRoot: "",
      schemaPackage: { name: "@crm/db", folder: "../../packages/db" },
      schemaFiles: ["../../packages/db/prisma/schema.prisma"],
      schemaFolder: undefined,
      prismaConfig: "../../packages/db/prisma.config.ts",
      migrations: "../../packages/db/prisma/migrations",
      client: { provider: "prisma-client", output: "../../packages/db/src/generated/prisma", previewFeatures: [] },
      packageManager: "npm",
      majors: { next: 16, prisma: 7, prismaMinor: 10, zod: undefined },
      gate: undefined,
    });
    expect(clientImportOf(project)).toBe("../../../../../packages/db/src/generated/prisma/client");
    expect(hostPathOf(project, "prisma/migrations/x/migration.sql")).toBe(
      "../../packages/db/prisma/migrations/x/migration.sql",
    );
    expect(host.inside("../../packages/db/prisma/schema.prisma")).toBe("packages/db/prisma/schema.prisma");
    expect(host.inside("../../../outside/victim.txt")).toBeUndefined();
  });

  it("refuses an app that depends on two workspace packages with a schema", () => {
    const host = hostWith(
      {
        ...workspace,
        "apps/crm/package.json": pkg({ "@crm/db": "*", "@crm/other": "*", next: "16.4.3" }),
      },
      "apps/crm",
    );
    expect(() => readHostProject(host)).toThrow(
      "the app depends on 2 workspace packages with a Prisma schema (@crm/db, @crm/other); the module's models go into one",
    );
  });

  it("an app the workspace does not list is a host of its own", () => {
    const host = hostWith({ ...workspace, "package.json": JSON.stringify({ workspaces: ["packages/*"] }) }, "apps/crm");
    expect(host.toBoundary).toBe("");
    expect(readHostProject(host)).toMatchObject({ schemaPackage: undefined, schemaFiles: [] });
  });
  it("create-next-app's defaults: @ to the root, one schema file, npm", () => {
    const project = readHostProject(
      hostWith({
        "package.json": pkg({ next: "16.4.3", prisma: "^7.10.1" }),
        "package-lock.json": "{}",
        "tsconfig.json": tsconfig({ "@/*": ["./*"] }),
        "app/layout.tsx": "",
        "prisma/schema.prisma": GENERATOR,
      }),
    );
    expect(project).toEqual({
      alias: "@",
      sourceRoot: "",
      schemaFiles: ["prisma/schema.prisma"],
      schemaFolder: undefined,
      prismaConfig: undefined,
      migrations: "prisma/migrations",
      client: { provider: "prisma-client", output: "app/generated/prisma", previewFeatures: [] },
      packageManager: "npm",
      majors: { next: 16, prisma: 7, prismaMinor: 10, zod: undefined },
      gate: undefined,
    });
  });

  it("--src-dir on pnpm with a schema folder named by prisma.config.ts and its own proxy.ts", () => {
    const project = readHostProject(
      hostWith({
        "package.json": pkg({ next: "16.4.3", "@prisma/client": "^7.10.0", zod: "^4.1.0" }),
        "pnpm-lock.yaml": "",
        "tsconfig.json": tsconfig({ "@/*": ["./src/*"] }),
        "src/app/page.tsx": "",
        "src/proxy.ts": "",
        "prisma.config.ts":
          'import { defineConfig } from "prisma/config";\n' +
          'export default defineConfig({ schema: "./prisma/schema/", migrations: { path: "prisma/migrations" } });\n',
        "prisma/schema/schema.prisma":
          GENERATOR.replace("../app", "../../src") + 'datasource db {\n  provider = "postgresql"\n}\n',
        "prisma/schema/customers.prisma": "model Customer {\n  id String @id\n}\n",
        "prisma/schema/notes.txt": "not a schema",
      }),
    );
    expect(project).toMatchObject({
      alias: "@",
      sourceRoot: "src/",
      schemaFiles: ["prisma/schema/customers.prisma", "prisma/schema/schema.prisma"],
      schemaFolder: "prisma/schema",
      prismaConfig: "prisma.config.ts",
      migrations: "prisma/migrations",
      client: { provider: "prisma-client", output: "src/generated/prisma" },
      packageManager: "pnpm",
      majors: { next: 16, prisma: 7, zod: { major: 4, minor: 1 } },
      gate: "src/proxy.ts",
    });
  });

  it("create-t3-app's shape: ~ to ./src with a baseUrl, Prisma 6's prisma-client-js, zod 3.25, middleware.ts", () => {
    const project = readHostProject(
      hostWith({
        "package.json": pkg({ next: "^15.2.3", "@prisma/client": "^6.16.0", zod: "^3.25.76" }),
        "tsconfig.json": tsconfig({ "~/*": ["./src/*"] }, "."),
        "src/app/layout.tsx": "",
        "src/middleware.ts": "",
        "prisma/schema.prisma":
          'generator client {\n  provider = "prisma-client-js"\n  output   = "../generated/prisma"\n}\n' +
          'datasource db {\n  provider = "postgresql"\n  url = env("DATABASE_URL")\n}\n',
      }),
    );
    expect(project).toMatchObject({
      alias: "~",
      sourceRoot: "src/",
      client: { provider: "prisma-client-js", output: "generated/prisma", previewFeatures: [] },
      majors: { next: 15, prisma: 6, prismaMinor: 16, zod: { major: 3, minor: 25 } },
      gate: "src/middleware.ts",
      migrations: "prisma/migrations",
    });
  });

  it("Prisma 6 before 6.16: refused, with the fix, unless the generator lists the driverAdapters preview", () => {
    const files = (previewFeatures: string) => ({
      "package.json": pkg({ next: "^15.2.3", "@prisma/client": "^6.6.0" }),
      "tsconfig.json": tsconfig({ "~/*": ["./src/*"] }),
      "src/app/layout.tsx": "",
      "prisma/schema.prisma": `generator client {\n  provider = "prisma-client-js"\n${previewFeatures}}\n`,
    });
    expect(() => readHostProject(hostWith(files("")))).toThrow(
      "the host runs Prisma 6.6, where the module's driver adapter is a preview feature: add previewFeatures = " +
        '["driverAdapters"] to the generator of prisma/schema.prisma, or raise prisma and @prisma/client to ^6.16.0',
    );
    const project = readHostProject(hostWith(files('  previewFeatures = ["views", "driverAdapters"]\n')));
    expect(project.client).toEqual({ provider: "prisma-client-js", previewFeatures: ["views", "driverAdapters"] });
  });

  const base = {
    "package.json": pkg({ next: "16.4.3" }),
    "tsconfig.json": tsconfig({ "@/*": ["./*"] }),
    "app/layout.tsx": "",
  };
  it.each([
    [{ "package.json": pkg({ next: "14.2.0" }) }, "the host runs Next.js 14; the module supports Next.js 15 and 16"],
    [
      { "package.json": pkg({ next: "16.0.0", prisma: "5.22.0" }) },
      "the host runs Prisma 5; the module supports Prisma 6 and 7",
    ],
    [
      { "package.json": pkg({ next: "16.0.0", zod: "^3.24.2" }) },
      'the host has zod 3.24; the module needs zod 3.25 or later, or 4 (it imports "zod/v4")',
    ],
    [{ "yarn.lock": "" }, "the host uses yarn.lock; the install supports npm and pnpm"],
    [
      { "tsconfig.json": tsconfig({ "@/*": ["./src/*"] }) },
      'tsconfig.json maps no alias to ./* (create-next-app\'s "@/*": ["./*"]); the module imports its files through it',
    ],
    [
      { "app/layout.tsx": undefined, "pages/index.tsx": "" },
      "the host has no app/ or src/app/ with a layout or page; the module needs Next's App Router",
    ],
    [
      { "prisma/schema.prisma": 'generator client {\n  provider = "prisma-client"\n}\n' },
      'prisma/schema.prisma: the generator "prisma-client" has no output; add one (Prisma 7\'s default)',
    ],
  ])("refuses an unsupported host in one sentence: %j", (changes, sentence) => {
    const files = Object.fromEntries(
      Object.entries({ ...base, ...changes }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    expect(() => readHostProject(hostWith(files))).toThrow(sentence);
  });
});

describe("where the module's files go", () => {
  const project = (overrides: Partial<HostProject>): HostProject => ({
    alias: "@",
    sourceRoot: "",
    schemaFiles: [],
    migrations: "prisma/migrations",
    packageManager: "npm",
    majors: { next: 16 },
    ...overrides,
  });

  it("sources under the source root, migrations into the host's, scripts at the root", () => {
    const src = project({ sourceRoot: "src/" });
    expect(hostPathOf(src, "lib/db/client.ts")).toBe("src/lib/db/client.ts");
    expect(hostPathOf(src, "app/api/leads/route.ts")).toBe("src/app/api/leads/route.ts");
    expect(hostPathOf(src, "prisma/migrations/x/migration.sql")).toBe("prisma/migrations/x/migration.sql");
    expect(hostPathOf(src, "scripts/host/check/check.ts")).toBe("scripts/host/check/check.ts");
  });

  it("re-exports the host's client by its alias, a relative path, or @prisma/client", () => {
    const client = (provider: "prisma-client" | "prisma-client-js", output?: string) => ({ provider, output });
    expect(clientImportOf(project({ client: client("prisma-client", "app/generated/prisma") }))).toBe(
      "@/app/generated/prisma/client",
    );
    expect(
      clientImportOf(project({ sourceRoot: "src/", client: client("prisma-client", "src/generated/prisma") })),
    ).toBe("@/generated/prisma/client");
    expect(
      clientImportOf(
        project({ alias: "~", sourceRoot: "src/", client: client("prisma-client-js", "generated/prisma") }),
      ),
    ).toBe("../../../../generated/prisma");
    expect(clientImportOf(project({ client: client("prisma-client-js") }))).toBe("@prisma/client");
    expect(clientImportOf(project({ client: client("prisma-client", "lib/generated/prisma") }))).toBeUndefined();
  });
});

describe("the module's models merged into a schema folder", () => {
  const moduleSchema = [
    "model Customer {",
    "  id   String @id",
    "  kind String",
    "  sourceName LeadSourceName?",
    '  @@map("customers")',
    "}",
    "",
    "// Added by the module.",
    "model LeadSourceName {",
    "  key        String   @id",
    '  customerId String   @unique @map("customer_id")',
    "  customer   Customer @relation(fields: [customerId], references: [id])",
    '  @@map("lead_source_names")',
    "}",
    "",
  ].join("\n");
  const files = [
    { file: "prisma/schema/customers.prisma", text: 'model Customer {\n  id String @id\n\n  @@map("customers")\n}\n' },
    {
      file: "prisma/schema/schema.prisma",
      text: 'generator client {\n  provider = "prisma-client"\n  output   = "../gen"\n}\n\ndatasource db {\n  provider = "postgresql"\n}\n',
    },
  ];

  /** The host's Customer is the module's, field for field. */
  const names = { models: { Customer: "Customer" }, fields: { Customer: {} } };

  it("adds fields in their model's file and the host's missing models in a file of their own", () => {
    const merge = mergeSchemaFiles(files, moduleSchema, names, new Set(), "prisma/schema/lead_intake.prisma");
    expect(merge.conflicts).toEqual([]);
    expect(merge.added).toEqual(["Customer.kind", "Customer.sourceName", "LeadSourceName"]);
    expect([...merge.changed.keys()]).toEqual(["prisma/schema/customers.prisma", "prisma/schema/lead_intake.prisma"]);
    const customers = merge.changed.get("prisma/schema/customers.prisma")!;
    expect(customers.split("\n").slice(0, 3)).toEqual(["model Customer {", "  id String @id", "  kind String"]);
    expect(customers).toContain("sourceName LeadSourceName?");
    expect(merge.changed.get("prisma/schema/lead_intake.prisma")).toMatch(
      /^\/\/ Added by the module\.\nmodel LeadSourceName/,
    );
  });

  it("puts the missing models after the last file where the schema is one file", () => {
    const one = [{ file: "prisma/schema.prisma", text: files[1].text + "\n" + files[0].text }];
    const merge = mergeSchemaFiles(one, moduleSchema, names, new Set());
    expect([...merge.changed.keys()]).toEqual(["prisma/schema.prisma"]);
    expect(merge.changed.get("prisma/schema.prisma")).toContain("model LeadSourceName {");
  });
});

describe("prisma.config.ts", () => {
  it("gives its schema and migrations paths, and refuses one it cannot read", () => {
    expect(
      prismaConfigPaths(
        'export default defineConfig({ schema: "prisma/schema", migrations: { path: "./db/migrations/" } });',
        "prisma.config.ts",
      ),
    ).toEqual({ schema: "prisma/schema", migrations: "db/migrations" });
    expect(prismaConfigPaths("export default defineConfig({});", "prisma.config.ts")).toEqual({});
    expect(() =>
      prismaConfigPaths("export default defineConfig({ schema: path.join('a', 'b') });", "prisma.config.ts"),
    ).toThrow("prisma.config.ts: schema is not a string the install can read; write it as a quoted path");
  });
});

describe("the import rewrite of the module's files", () => {
  const source = [
    'import { a } from "@/lib/a";',
    'import type { B } from "@/lib/b";',
    "export * from '@/lib/c';",
    'const d = () => import("@/lib/d");',
    'type E = typeof import("@/lib/e");',
    'import "@/lib/side";',
    'import { z } from "zod";',
    'import { f } from "./f";',
    'const text = "@/lib/not-an-import";',
    '// import x from "@/lib/in-a-comment"',
  ].join("\n");

  it("writes every import of the module's alias with the host's, and nothing else", () => {
    expect(withHostAlias(source, "~")).toBe(
      source
        .replace('"@/lib/a"', '"~/lib/a"')
        .replace('"@/lib/b"', '"~/lib/b"')
        .replace("'@/lib/c'", "'~/lib/c'")
        .replace('"@/lib/d"', '"~/lib/d"')
        .replace('"@/lib/e"', '"~/lib/e"')
        .replace('"@/lib/side"', '"~/lib/side"'),
    );
    expect(withHostAlias(source, "@acme/web")).toContain('import { a } from "@acme/web/lib/a";');
  });

  it("leaves a file alone where the host's alias is the module's", () => {
    expect(withHostAlias(source, "@")).toBe(source);
  });
});
