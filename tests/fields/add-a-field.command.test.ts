import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * README's recipe for a new optional lead field, followed in a copy of the project. First the edits the code needs (a
 * column in prisma/schema.prisma and in the resolved host names, a migration adding it, one row in
 * OPTIONAL_LEAD_FIELDS): every list of the
 * fields kept elsewhere then fails (tests/fields/field-lists.unit.test.ts). Then the recipe's other edits (the tests'
 * oracle, the "All fields" example, examples/leads.csv, three docs), and the generated files regenerated as a
 * contributor would (Prisma client, document, client types, migration checksums). In the copy, a lead is then created
 * with the field and listed with it (through the routes, every answer checked against the copy's own document), the
 * migrated database matches the schema, the seed loads, the field lists pass, and the project type-checks.
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

interface Edit {
  file: string;
  after: string;
  insert: string;
}

/** The edits the code needs, each a text inserted after an anchor that must exist once. */
const CODE: Edit[] = [
  {
    file: "prisma/schema.prisma",
    after: "  remark             String?\n",
    insert: `  ${FIELD} String? @map("preferred_contact_time")\n`,
  },
  {
    file: "lib/db/host-names.json",
    after: '      "remark": "remark",\n',
    insert: `      "${FIELD}": "preferred_contact_time",\n`,
  },
  { file: "lib/db/host-names.ts", after: '    "remark",\n', insert: `    "${FIELD}",\n` },
  { file: "lib/db/host-names.ts", after: "    remark: string | null;\n", insert: `    ${FIELD}: string | null;\n` },
  {
    file: "lib/leads/fields.ts",
    after: '  remark: freeText(500, "remark"),\n',
    insert: `  ${FIELD}: freeText(60, "${FIELD}"),\n`,
  },
];

/** The recipe's other edits: the lists of the fields that tests/fields/field-lists.unit.test.ts holds to the table. */
const LISTS: Edit[] = [
  { file: "tests/helpers/mapped-host.ts", after: '      remark: "notes",\n', insert: `      ${FIELD}: "${FIELD}",\n` },
  { file: "tests/helpers/oracle.ts", after: '  "remark",\n', insert: `  "${FIELD}",\n` },
  { file: "tests/helpers/oracle.ts", after: "remark: 500", insert: `, ${FIELD}: 60` },
  {
    file: "lib/openapi/examples.ts",
    after: '    remark: "Prefers a call after 6 pm",\n',
    insert: `    ${FIELD}: "Evenings",\n`,
  },
  { file: "examples/leads.csv", after: "projectType,remark", insert: `,${FIELD}` },
  { file: "docs/operating.md", after: "projectType, remark", insert: `, ${FIELD}` },
  { file: "docs/decisions.md", after: "`leadAddress`, `remark`", insert: `, \`${FIELD}\`` },
  { file: "docs/host-guide.md", after: "`address`, `remark`", insert: ", `preferred_contact_time`" },
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

async function apply(edits: Edit[]) {
  for (const { file, after, insert } of edits) {
    const text = await readFile(path.join(copy, file), "utf8");
    expect(text.split(after).length, `${file} has the anchor ${after} once`).toBe(2);
    await writeFile(path.join(copy, file), text.replace(after, after + insert));
  }
}

/** The copy's CSV example with one more (empty) column on every data row, so that the rows still match the header. */
async function widenCsvRows() {
  const file = path.join(copy, "examples/leads.csv");
  const [header, ...rows] = (await readFile(file, "utf8")).split("\n");
  await writeFile(file, [header, ...rows.map((row) => (row ? `${row},` : row))].join("\n"));
}

describe("adding an optional lead field by README's recipe", () => {
  it("fails every list of the fields until the recipe's edits, then serves the field", async () => {
    await apply(CODE);
    await mkdir(path.join(copy, MIGRATION.dir));
    await writeFile(path.join(copy, MIGRATION.dir, "migration.sql"), MIGRATION.sql);
    expect(run("npm", ["run", "db:generate"]).status).toBe(0);
    const stale = run("npx", [
      "vitest",
      "run",
      "--config",
      "tests/vitest.config.ts",
      "tests/fields/field-lists.unit.test.ts",
    ]);
    expect(stale.status).not.toBe(0);
    expect(stale.output).toMatch(/Tests\s+4 failed/);

    await apply(LISTS);
    await widenCsvRows();
    await writeFile(path.join(copy, "tests/fields/new-field.db.test.ts"), NEW_FIELD_TEST);
    for (const [command, ...args] of [
      ["npx", "tsx", "scripts/migration-checksums.ts"],
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
      "tests/fields/new-field.db.test.ts",
      "tests/database/schema-matches-migrations.db.test.ts",
      "tests/database/seed.db.test.ts",
      "tests/client/client-types.unit.test.ts",
      "tests/docs/openapi-generation.unit.test.ts",
      "tests/docs/openapi-operations.unit.test.ts",
      "tests/docs/openapi-examples.unit.test.ts",
      "tests/fields/field-lists.unit.test.ts",
    ]);
    expect(tests.status, tests.output.slice(-4000)).toBe(0);
    expect(tests.output).toMatch(/Test Files\s+8 passed/);
  }, 300_000);
});
