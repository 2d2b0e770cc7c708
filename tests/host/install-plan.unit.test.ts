import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HOST_NAMES, parseHostNames } from "@/lib/db/host-names";
import { NAMES_MIGRATION } from "@/lib/db/migration-objects.mjs";
import { refusalSentence } from "@/scripts/host/host-folder";
import { STATE_FILE } from "@/scripts/host/manifest";
import { NAMES_FILE, planInstall, type InstallPlan } from "@/scripts/host/plan-install";
import { openHost } from "@/scripts/host/workspace";
import { ROOT } from "@/tests/helpers/source-files";

const FIXTURES = path.join(ROOT, "tests/fixtures");

/** Every file under a folder with its size and time of change: what a plan must leave as it was. */
function fingerprint(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .sort()
    .map((file) => {
      const stat = statSync(path.join(folder, file));
      return `${file} ${stat.size} ${stat.mtimeMs}`;
    });
}

const planOf = (folder: string) => planInstall(openHost(folder));
const written = (plan: InstallPlan, file: string) => String(plan.writes.get(file) ?? "");

describe("the install's plan of each committed fixture host, which writes nothing", () => {
  it.each([
    ["host-app", "", "prisma/schema.prisma"],
    ["host-src-app", "src/", "prisma/schema"],
    ["host-t3-app", "src/", "prisma/schema.prisma"],
    ["host-monorepo/apps/crm", "", "../../packages/db/prisma/schema.prisma"],
    ["host-turborepo/apps/web", "src/", "../../packages/database/prisma/schema.prisma"],
  ])("%s: files, schema, names, packages and record", (fixture, sourceRoot, schema) => {
    const folder = path.join(FIXTURES, fixture);
    const before = fingerprint(path.join(FIXTURES, fixture.split("/")[0]));
    const plan = planOf(folder) as InstallPlan;
    expect(fingerprint(path.join(FIXTURES, fixture.split("/")[0]))).toEqual(before);
    expect(plan.schema.where).toBe(schema);
    expect(plan.schema.added).toEqual(expect.arrayContaining(["Customer.sourceName", "LeadSourceName"]));
    expect(plan.schema.added.filter((a) => ["Customer", "User", "Referral", "AuditEntry"].includes(a))).toEqual([]);
    // The fixtures use the module's own tables and columns: the names file is the module's, the migrations as they are.
    expect(parseHostNames(JSON.parse(written(plan, `${sourceRoot}${NAMES_FILE}`)))).toEqual(HOST_NAMES);
    expect(plan.renderedMigrations).toEqual([]);
    expect(plan.writes.has("package.json")).toBe(true);
    expect([...plan.writes.keys()].at(-1)).toBe(STATE_FILE);
    expect(plan.files.added.length).toBeGreaterThan(50);
  });
});

describe("the plan of a host with its own names", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "lead-intake-plan-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  cpSync(path.join(FIXTURES, "host-app"), folder, { recursive: true });
  const schema = (customer: string) =>
    `generator client {\n  provider = "prisma-client"\n  output   = "../app/generated/prisma"\n}\n\n` +
    `datasource db {\n  provider = "postgresql"\n}\n\n${customer}\n` +
    `model User {\n  id Int @id @default(autoincrement())\n  platformId String? @unique\n  name String\n` +
    `  accessLevels String[]\n  createdAt DateTime @default(now())\n}\n\n` +
    `model Referral {\n  id Int @id @default(autoincrement())\n  referrerCustomerId String\n  leadCustomerId String?\n` +
    `  leadName String\n  mobileNumber String?\n  status String\n  state String?\n  city String?\n  address String?\n` +
    `  relationship String?\n  projectType String?\n  remark String?\n  assignedAgentId Int?\n  preferredAgentId Int?\n` +
    `  createdAt DateTime? @default(now())\n}\n`;
  const contact =
    "model Contact {\n  id String @id\n  kind String\n  name String\n  mobileNumber String?\n  state String\n  city String\n" +
    "  address String\n  source String?\n  createdAt DateTime @default(now())\n}\n";

  it("without a config, proposes one of best guesses and plans nothing else", () => {
    writeFileSync(path.join(folder, "prisma/schema.prisma"), schema(contact));
    const before = fingerprint(folder);
    const proposal = planOf(folder);
    expect(fingerprint(folder)).toEqual(before);
    expect(proposal).toMatchObject({ file: "lead-intake.config.json" });
    expect(JSON.parse((proposal as { text: string }).text)).toEqual({
      models: { Customer: { model: "Contact", fields: { sourceType: "source" } }, AuditEntry: null },
    });
  });

  it("with its config, plans the names file, the migrations in its names, and sourceName on its model", () => {
    writeFileSync(path.join(folder, "prisma/schema.prisma"), schema(contact));
    writeFileSync(
      path.join(folder, "lead-intake.config.json"),
      JSON.stringify({
        models: { Customer: { model: "Contact", fields: { sourceType: "source" } }, AuditEntry: null },
      }),
    );
    const plan = planOf(folder) as InstallPlan;
    const names = parseHostNames(JSON.parse(written(plan, NAMES_FILE)));
    expect(names.Customer.table).toBe("Contact");
    expect(names.Customer.columns.sourceType).toBe("source");
    expect(names.Referral.withoutTimeZone).toEqual(["createdAt"]);
    expect(names.AuditEntry).toBeNull();
    expect(plan.renderedMigrations.length).toBeGreaterThan(0);
    expect(written(plan, "prisma/schema.prisma")).toMatch(/model Contact \{[^}]*sourceName +LeadSourceName\?/);
  });

  it("refuses a config that does not fit, in one sentence per problem", () => {
    writeFileSync(path.join(folder, "prisma/schema.prisma"), schema(contact.replace("source String?", "source Int?")));
    let sentence = "";
    try {
      planOf(folder);
    } catch (error) {
      sentence = refusalSentence(error);
    }
    expect(sentence).toBe("Customer.sourceType maps to Contact.source, an Int; map it to a field of type String");
  });
});

describe("the indexes the module's migrations put on the host's tables, in the plan of a fixture host", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "lead-intake-plan-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  /** A model's lines in a schema text, from its `model` line to its closing brace. */
  const modelLines = (schema: string, model: string) => {
    const lines = schema.split("\n");
    const start = lines.indexOf(`model ${model} {`);
    return lines.slice(start, lines.indexOf("}", start) + 1);
  };
  const RECORDED = [
    "Customer@@index([kind])",
    "Referral@@index([referrerCustomerId, id(sort: Desc)])",
    "Referral@@index([assignedAgentId])",
    "AuditEntry@@index([referralId])",
  ];

  it.each([
    [
      "host-app-own-names",
      {
        Contact: ["@@index([kind])"],
        Deal: ["@@index([introducerId, id(sort: Desc)])", "@@index([ownerId])"],
        ActivityLog: ["@@index([dealId])"],
      },
    ],
    [
      "host-app-default-names",
      {
        Customer: ["@@index([kind])"],
        Referral: ["@@index([referrerCustomerId, id(sort: Desc)])", "@@index([assignedAgentId])"],
        AuditEntry: ["@@index([referralId])"],
      },
    ],
  ])("%s: each as an @@index of the host's model in its field names, after a blank line, recorded", (overlay, want) => {
    rmSync(folder, { recursive: true, force: true });
    cpSync(path.join(FIXTURES, "host-app"), folder, { recursive: true });
    cpSync(path.join(FIXTURES, overlay), folder, { recursive: true });
    const before = readFileSync(path.join(folder, "prisma/schema.prisma"), "utf8");
    const plan = planOf(folder) as InstallPlan;
    const schema = written(plan, "prisma/schema.prisma");
    for (const [model, indexes] of Object.entries(want)) {
      const lines = modelLines(schema, model);
      // The model's own lines, then a blank line and the indexes, right before its closing brace.
      expect(lines.slice(-indexes.length - 2)).toEqual(["", ...indexes.map((line) => `  ${line}`), "}"]);
    }
    expect(schema.match(/@@index/g)).toHaveLength(4);
    // Every line of the host's stays, in order: the merge only adds lines.
    const hostLines = before.replace(/\n$/, "").split("\n");
    let next = 0;
    for (const line of schema.split("\n")) if (line === hostLines[next]) next++;
    expect(next).toBe(hostLines.length);
    expect(plan.schema.added).toEqual(expect.arrayContaining(RECORDED));
    const record = JSON.parse(written(plan, STATE_FILE)) as { schema: string[] };
    expect(record.schema.filter((entry) => entry.includes("@@"))).toEqual(RECORDED);
  });

  it("adds none the host's model declares already, nor one on a field the host has not", () => {
    rmSync(folder, { recursive: true, force: true });
    cpSync(path.join(FIXTURES, "host-app"), folder, { recursive: true });
    cpSync(path.join(FIXTURES, "host-app-own-names"), folder, { recursive: true });
    const file = path.join(folder, "prisma/schema.prisma");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(
        "  activity         ActivityLog[]\n}",
        "  activity         ActivityLog[]\n\n  @@index([introducerId, id(sort: Desc)])\n}",
      ),
    );
    const config = path.join(folder, "lead-intake.config.json");
    const names = JSON.parse(readFileSync(config, "utf8")) as {
      models: Record<string, { fields: Record<string, string | null> } | null>;
    };
    names.models.Referral!.fields.assignedAgentId = null;
    writeFileSync(config, JSON.stringify(names));
    const plan = planOf(folder) as InstallPlan;
    const deal = modelLines(written(plan, "prisma/schema.prisma"), "Deal");
    expect(deal.filter((line) => line.includes("@@index"))).toEqual(["  @@index([introducerId, id(sort: Desc)])"]);
    expect(plan.schema.added.filter((entry) => entry.startsWith("Referral@@"))).toEqual([]);
  });
});

describe("a change of the host's names after an install wrote its migrations", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "lead-intake-plan-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  /** Writes a plan as the install would. */
  const apply = (plan: InstallPlan) => {
    for (const [file, content] of plan.writes) {
      if (content === null) rmSync(path.join(folder, file));
      else {
        mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
        writeFileSync(path.join(folder, file), content);
      }
    }
  };
  const migrationWrites = (plan: InstallPlan) => [...plan.writes.keys()].filter((f) => f.includes("migrations/"));

  it("keeps the migrations as written and plans one more that moves the module's objects, once", () => {
    cpSync(path.join(FIXTURES, "host-app"), folder, { recursive: true });
    cpSync(path.join(FIXTURES, "host-app-own-names"), folder, { recursive: true });
    apply(planOf(folder) as InstallPlan);
    // The host renames Contact.fullName, and its config follows.
    for (const file of ["prisma/schema.prisma", "lead-intake.config.json"]) {
      const text = readFileSync(path.join(folder, file), "utf8");
      writeFileSync(path.join(folder, file), text.replaceAll("fullName", "contactName"));
    }
    const plan = planInstall(openHost(folder), new Date("2026-12-01T09:30:00Z")) as InstallPlan;
    const moved = `prisma/migrations/20261201093000${NAMES_MIGRATION}/migration.sql`;
    expect(migrationWrites(plan)).toEqual([moved]);
    expect(plan.namesMigration).toBe(moved);
    const sql = written(plan, moved);
    expect(sql).toMatch(/^DROP INDEX IF EXISTS "Contact_source_key_idx";$/m);
    // The old name only where the old objects are dropped: a parameter's name changes by a drop.
    expect(sql).toMatch(/^DROP FUNCTION IF EXISTS "lead_intake_source_key"\("fullName" TEXT\);$/m);
    expect(sql.replace(/^DROP .*$/gm, "")).not.toContain("fullName");
    expect(sql).toContain(`"lead_intake_source_key"("contactName")`);
    expect(parseHostNames(JSON.parse(written(plan, NAMES_FILE))).Customer.columns.name).toBe("contactName");
    apply(plan);
    // Installed again with no further change: nothing more to move, and the names migration stays.
    const again = planOf(folder) as InstallPlan;
    expect(migrationWrites(again)).toEqual([]);
    expect(again.namesMigration).toBeUndefined();
    expect(JSON.parse(written(again, STATE_FILE)).files).toHaveProperty([moved]);
  });
});

describe("host:install --dry-run", () => {
  it("prints the plan of a fixture host and writes nothing", () => {
    const folder = path.join(FIXTURES, "host-app");
    const before = fingerprint(folder);
    const printed = execFileSync(
      path.join(ROOT, "node_modules/.bin/tsx"),
      ["scripts/host/install.ts", folder, "--dry-run"],
      {
        cwd: ROOT,
        encoding: "utf8",
      },
    );
    expect(fingerprint(folder)).toEqual(before);
    const lines = printed.trim().split("\n");
    expect(lines[0]).toMatch(
      /^Lead Intake module \S+ would be installed into .*host-app \(dry run, nothing written\):$/,
    );
    expect(lines).toContain(
      "- names: Customer on table customers, User on table users, Referral on table referrals, AuditEntry on table audit_entries; the migrations as they are",
    );
    expect(lines).toContain(`  write  ${NAMES_FILE}`);
    expect(lines.at(-1)).toBe(`  write  ${STATE_FILE}`);
  }, 120_000);
});
