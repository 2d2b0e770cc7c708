import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { MODULE_FILES, manifestTable, moduleFiles } from "@/scripts/host/manifest";
import { hostNeeds } from "@/scripts/host/needs-of";
import { hostNamesOf } from "@/scripts/host/host-names-of";
import { parseNamesConfig, type NamesConfig } from "@/scripts/host/names-config";
import { parseSchema } from "@/scripts/host/check/prisma-names";
import { mergeSchemas } from "@/scripts/host/schema";
import {
  serverExternalPackagesOf,
  withoutServerExternalPackages,
  withServerExternalPackages,
} from "@/scripts/host/next-config";

/**
 * The manifest of the module's files for a host (scripts/host/manifest.ts) is complete and is what the guide shows;
 * the schema merge of `npm run host:install` adds what a host lacks and refuses what would not work.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const MODULE_SCHEMA = readFileSync(path.join(ROOT, "prisma/schema.prisma"), "utf8");

describe("the manifest of the module's files", () => {
  it("is the table docs/host-guide.md shows", () => {
    expect(readFileSync(path.join(ROOT, "docs/host-guide.md"), "utf8")).toContain(`${manifestTable()}\n`);
  });

  it("holds every project file its files import, so a host gets no import it cannot resolve", () => {
    const files = new Set([...moduleFiles(ROOT), ...MODULE_FILES.filter((e) => e.generated).flatMap((e) => e.paths)]);
    const unresolved: string[] = [];
    // The generated entries are written by the install; in this project the generated client stands there instead.
    for (const file of moduleFiles(ROOT).filter((f) => /\.(ts|tsx|mts|mjs)$/.test(f))) {
      for (const { fileName } of ts.preProcessFile(readFileSync(path.join(ROOT, file), "utf8"), true, true)
        .importedFiles) {
        if (!fileName.startsWith("@/") && !fileName.startsWith(".")) continue;
        const target = fileName.startsWith("@/")
          ? fileName.slice(2)
          : path.posix.join(path.posix.dirname(file), fileName);
        const candidates = ["", ".ts", ".tsx", "/index.ts"].map((ending) => target + ending);
        if (!candidates.some((candidate) => files.has(candidate))) unresolved.push(`${file} -> ${fileName}`);
      }
    }
    expect(unresolved).toEqual([]);
  });

  it("tells host:check the module's own tables, and the fields of the host's it uses with their types", () => {
    const needs = hostNeeds(ROOT);
    expect(Object.keys(needs.tables).filter((table) => !table.startsWith("lead_"))).toEqual([]);
    expect(needs.fields.User).toEqual({ id: "Int", platformId: "String?", name: "String", accessLevels: "String[]" });
    expect(needs.fields.Referral).toMatchObject({ status: "String", createdAt: "DateTime?" });
    expect(needs.fields.Referral).not.toHaveProperty("preferredAgentId");
  });
});

describe("the schema merge", () => {
  const HEAD =
    'generator client {\n  provider = "prisma-client"\n  output   = "../app/generated/prisma"\n}\n\n' +
    'datasource db {\n  provider = "postgresql"\n}\n';

  /** The merge as the install does it: with the host's names for the module's host models. */
  const merge = (host: string, config?: NamesConfig, addedBefore?: Set<string>) =>
    mergeSchemas(host, MODULE_SCHEMA, hostNamesOf(parseSchema(MODULE_SCHEMA), parseSchema(host), config), addedBefore);

  it("adds nothing to a schema that has the module's models", () => {
    expect(merge(MODULE_SCHEMA)).toMatchObject({ added: [], conflicts: [] });
  });

  it("never adds a model for a host table: a schema without them has its names to find", () => {
    const { missing } = hostNamesOf(parseSchema(MODULE_SCHEMA), parseSchema(HEAD), undefined);
    expect(missing).toEqual(["Customer", "User", "Referral", "AuditEntry"]);
  });

  const HOST_REFERRALS =
    `${HEAD}\n// The CRM's referrals.\nmodel Referral {\n  id       Int      @id @default(autoincrement())\n` +
    '  leadName String   @map("lead_name")\n  owner    Customer @relation(fields: [ownerId], references: [id])\n' +
    '  ownerId  String   @map("owner_id")\n\n  @@map("referrals")\n}\n\n' +
    'model Customer {\n  id        String     @id\n  referrals Referral[]\n\n  @@map("customers")\n}\n\n' +
    'model User {\n  id   Int    @id @default(autoincrement())\n  name String\n\n  @@map("users")\n}\n';

  it("keeps every line of the host's, adds column fields after its last column field, and none the module never uses", () => {
    const merged = merge(HOST_REFERRALS);
    expect(merged.conflicts).toEqual([]);
    expect(merged.added).toContain("Referral.remark");
    expect(merged.added).not.toContain("Referral.preferredAgentId");
    expect(merged.added).not.toContain("User.createdAt");
    const lines = merged.schema.split("\n");
    // The host's text, line for line and in order (lines are only added), with the comment right above its model.
    const hostLines = HOST_REFERRALS.replace(/\n$/, "").split("\n");
    let next = 0;
    for (const line of lines) if (line === hostLines[next]) next++;
    expect(hostLines.slice(next)).toEqual([]);
    expect(merged.schema).toContain("// The CRM's referrals.\nmodel Referral {\n");
    const referral = lines.slice(lines.indexOf("model Referral {"), lines.indexOf('  @@map("referrals")'));
    const at = (start: string) => referral.findIndex((line) => line.startsWith(start));
    expect(at("  ownerId ")).toBeLessThan(at("  remark "));
    expect(at("  owner ")).toBeLessThan(at("  ownerId "));
    expect(referral).toContain('  projectType String?  @map("project_type")');
    // A model the host lacks comes with the comment above it in the module's schema.
    expect(merged.schema).toMatch(/\/\/ Requests per key digest[^\n]*\nmodel LeadRateLimitCount \{/);
  });

  it("refuses to add again a field an earlier install added and the host removed, and says why", () => {
    expect(merge(HOST_REFERRALS, undefined, new Set(["Referral.remark"])).conflicts).toEqual([
      "Referral.remark (column referrals.remark), which an earlier install added, was removed from the host's " +
        "schema; the module's code is typed by it: put the field back",
    ]);
  });

  it("takes the host's models and fields of its own names and columns, and relates the module's models to them", () => {
    const host =
      `${HEAD}\nmodel Client {\n  id String @id @map("client_id")\n  kind String\n  fullName String @map("full_name")\n` +
      "  phone String?\n  state String\n  city String\n  address String\n  sourceType String?\n  createdAt DateTime\n\n" +
      '  @@map("clients")\n}\n';
    const { config } = parseNamesConfig(
      '{ "models": { "Customer": { "model": "Client", "fields": { "name": "fullName", "mobileNumber": "phone" } } } }',
    ) as { config: NamesConfig };
    const merged = merge(host, config);
    expect(merged.conflicts).toEqual([]);
    expect(merged.added).toContain("Customer.sourceName");
    expect(merged.schema).toMatch(/model Client \{[^}]*\n  sourceName +LeadSourceName\?\n/);
    expect(merged.schema).toMatch(/\n  customer +Client +@relation\(fields: \[customerId\], references: \[id\]\)/);
    expect(merged.schema).not.toMatch(/^model Customer /m);
  });
});

describe("the next.config edit of `npm run host:install`", () => {
  const PACKAGES = ["pg", "@prisma/adapter-pg"];
  const edit = (config: string) => withServerExternalPackages(config, "next.config.ts", PACKAGES);
  it.each([
    [
      "a trailing comma",
      `export default {\n  serverExternalPackages: [\n    "sharp",\n  ],\n};\n`,
      `export default {\n  serverExternalPackages: [\n    "sharp", "pg", "@prisma/adapter-pg",\n  ],\n};\n`,
    ],
    [
      "no trailing comma",
      `export default { serverExternalPackages: ["sharp", "pg"] };\n`,
      `export default { serverExternalPackages: ["sharp", "pg", "@prisma/adapter-pg"] };\n`,
    ],
    [
      "an empty array",
      `const nextConfig = { serverExternalPackages: [] };\nexport default nextConfig;\n`,
      `const nextConfig = { serverExternalPackages: ["pg", "@prisma/adapter-pg"] };\nexport default nextConfig;\n`,
    ],
    [
      "no such property",
      `const nextConfig: NextConfig = { cacheComponents: true };\nexport default nextConfig;\n`,
      `const nextConfig: NextConfig = {\n  serverExternalPackages: ["pg", "@prisma/adapter-pg"], cacheComponents: true };\nexport default nextConfig;\n`,
    ],
  ])("adds the missing packages to a config with %s, changing nothing else", (_, config, expected) => {
    expect(edit(config)).toBe(expected);
  });

  it("leaves a config that lists them alone, and one it cannot read to the host", () => {
    expect(edit(`export default { serverExternalPackages: ["@prisma/adapter-pg", "pg"] };`)).toBeNull();
    expect(edit(`export default makeConfig();`)).toBeUndefined();
    expect(edit(`export default { serverExternalPackages: packages };`)).toBeUndefined();
  });

  // Each of these evaluates to a list the text alone does not give (a later key wins, a spread may hold one): the
  // install says to add the packages by hand rather than claim an edit that the config would not see.
  it.each([
    ["a quoted key", `export default { "serverExternalPackages": ["sharp"] };`],
    ["a shorthand", `const serverExternalPackages = ["sharp"];\nexport default { serverExternalPackages };`],
    ["a computed key", `const key = "serverExternalPackages";\nexport default { [key]: ["sharp"] };`],
    ["a spread", `const base = { serverExternalPackages: ["sharp"] };\nexport default { ...base };`],
    ["a spread without the name", `export default { ...base, cacheComponents: true };`],
    ["the key twice", `export default { serverExternalPackages: ["a"], serverExternalPackages: ["b"] };`],
    [
      "a later assignment",
      `const c = { serverExternalPackages: [] };\nc.serverExternalPackages = ["b"];\nexport default c;`,
    ],
    ["an element that is not a string", `export default { serverExternalPackages: ["a", ...more] };`],
  ])("leaves a config with %s to the host", (_, config) => {
    expect(edit(config)).toBeUndefined();
    expect(serverExternalPackagesOf(config, "next.config.ts")).toBeUndefined();
  });

  it.each([
    [
      "a created property",
      `const nextConfig = {\n  /* options */\n  cacheComponents: true,\n};\nexport default nextConfig;\n`,
    ],
    ["a created property in an empty object", `export default {};\n`],
    ["the host's own packages first", `export default { serverExternalPackages: ["sharp"] };\n`],
    ["the host's own package between", `export default { serverExternalPackages: ["pg", "sharp"] };\n`],
  ])("takes out what it added to %s, back to the host's text", (_, config) => {
    const before = serverExternalPackagesOf(config, "next.config.ts")!;
    const added = PACKAGES.filter((p) => !before.includes(p));
    const created = !config.includes("serverExternalPackages");
    const installed = edit(config)!;
    expect(serverExternalPackagesOf(installed, "next.config.ts")).toEqual(expect.arrayContaining(PACKAGES));
    expect(withoutServerExternalPackages(installed, "next.config.ts", added, created)).toBe(config);
  });
});
