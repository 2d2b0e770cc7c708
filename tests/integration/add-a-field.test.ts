import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * README's recipe for a new optional lead field, followed in a copy of the project: a column in
 * prisma/schema.prisma, a migration adding it, one row in OPTIONAL_LEAD_FIELDS. Nothing else is edited; the
 * generated files are regenerated as a contributor would (Prisma client, document, client types). Then, in the
 * copy, a lead is created with the field and listed with it (through the routes, every answer checked against the
 * copy's own document), the migrated database matches the schema, the seed loads, and the project type-checks.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
/** Generated, local or large: the copy makes its own or links to this checkout's. */
const NOT_COPIED = new Set([
  ".git",
  ".next",
  ".data",
  ".env.local",
  "node_modules",
  "public",
  "test-results",
  "tsconfig.tsbuildinfo",
  "generated",
]);

const FIELD = "preferredContactTime";

/** The three edits of the recipe, each a text inserted after an anchor that must exist. */
const RECIPE: { file: string; after: string; insert: string }[] = [
  {
    file: "prisma/schema.prisma",
    after: "  remark             String?\n",
    insert: `  ${FIELD} String? @map("preferred_contact_time")\n`,
  },
  {
    file: "lib/leads/fields.ts",
    after: '  remark: freeText(500, "remark"),\n',
    insert: `  ${FIELD}: freeText(60, "${FIELD}"),\n`,
  },
];
const MIGRATION = {
  dir: "prisma/migrations/29990101000000_preferred_contact_time",
  sql: "ALTER TABLE referrals ADD COLUMN preferred_contact_time text;\n",
};

/** The test run inside the copy: create with the field, create without it, list both. */
const NEW_FIELD_TEST = `import { beforeAll, expect, it } from "vitest";
import { call, post } from "../helpers/api";
import { createTestDatabase } from "../helpers/db";

beforeAll(async () => {
  await createTestDatabase();
});

it("creates and lists a lead with the new field", async () => {
  const base = { leadMobileNumber: "0123456789", referrer: "Field Test Source" };
  expect((await post({ ...base, leadName: "With", ${FIELD}: "  evenings  " })).status).toBe(201);
  expect((await post({ ...base, leadName: "Without" })).status).toBe(201);
  expect((await post({ ...base, leadName: "Too long", ${FIELD}: "x".repeat(61) })).status).toBe(400);
  const listed = await call("GET", "/api/leads?referrer=Field%20Test%20Source");
  expect(listed.status).toBe(200);
  expect(listed.body.leads.map((l: Record<string, unknown>) => [l.leadName, l.${FIELD}])).toEqual([
    ["Without", ""],
    ["With", "evenings"],
  ]);
});
`;

let copy: string;

function run(command: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd: copy, encoding: "utf8", timeout: 240_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.replace(/\x1b\[[0-9;]*m/g, "") };
}

beforeAll(async () => {
  const parent = await mkdtemp(path.join(tmpdir(), "lead-intake-add-a-field-"));
  copy = path.join(parent, "project");
  await cp(ROOT, copy, { recursive: true, filter: (source) => !NOT_COPIED.has(path.basename(source)) });
  await symlink(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
}, 60_000);

afterAll(async () => {
  if (copy) await rm(path.dirname(copy), { recursive: true, force: true });
});

describe("adding an optional lead field by README's recipe", () => {
  it("needs only the schema, a migration and one row of the field table", async () => {
    for (const { file, after, insert } of RECIPE) {
      const text = await readFile(path.join(copy, file), "utf8");
      expect(text.split(after).length, `${file} has the anchor once`).toBe(2);
      await writeFile(path.join(copy, file), text.replace(after, after + insert));
    }
    await mkdir(path.join(copy, MIGRATION.dir));
    await writeFile(path.join(copy, MIGRATION.dir, "migration.sql"), MIGRATION.sql);
    await writeFile(path.join(copy, "tests/integration/new-field.test.ts"), NEW_FIELD_TEST);

    for (const [command, ...args] of [
      ["npm", "run", "db:generate"],
      ["npx", "tsx", "scripts/client-types.ts"],
      ["npx", "tsc", "--noEmit"],
    ]) {
      const { status, output } = run(command, args);
      expect(status, `${command} ${args.join(" ")}:\n${output.slice(-3000)}`).toBe(0);
    }
    const tests = run("npx", [
      "vitest",
      "run",
      "--config",
      "tests/vitest.config.ts",
      "tests/integration/new-field.test.ts",
      "tests/integration/schema-matches-migrations.test.ts",
      "tests/integration/seed.test.ts",
      "tests/unit/client-types.test.ts",
      "tests/unit/openapi.test.ts",
    ]);
    expect(tests.status, tests.output.slice(-4000)).toBe(0);
    expect(tests.output).toMatch(/Test Files\s+5 passed/);
  }, 300_000);
});
