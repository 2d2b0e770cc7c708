import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations } from "@/lib/db/migrate";
import { HOST_MIGRATION, hostDatabase } from "../helpers/host-database";
import { generateHostClient, hostCopy, ROOT, runHostScript } from "../helpers/host-install-run";

/**
 * `host:check` in a host with names of its own (Contact, Member, Deal and ActivityLog, a DealStage enum, timestamps
 * without time zone): its names agree with the database the host's and the module's migrations made, and each way the
 * database then stops agreeing is one FAIL line naming the field, the host's column, what was found and the fix. A
 * host in Prisma's default naming (tables "Customer", columns "mobileNumber") agrees too.
 */

/** The module's migrations as the install wrote them into the host, in its names. */
function installedMigrations(host: string) {
  const folder = path.join(host, "prisma/migrations");
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== HOST_MIGRATION)
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(folder, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex"), earlierChecksums: [] };
    });
}

/**
 * A copy of the fixture host with an overlay of tests/fixtures, the module installed, its packages and client as the
 * printed steps make them, and a database with the host's migration and the module's as the install wrote them.
 */
async function installedHost(overlay: string) {
  const folders = hostCopy();
  cpSync(path.join(ROOT, "tests/fixtures", overlay), folders.host, { recursive: true });
  const installed = runHostScript("install", [folders.host]);
  expect(installed.status, installed.stderr).toBe(0);
  const db = await hostDatabase(folders.host);
  await applyMigrations(db.url, installedMigrations(folders.host), 10);
  const env = generateHostClient(folders.host, db.url);
  return { folders, db, env: { ...env, LEADS_API_KEY: "k".repeat(40) } };
}

/** `npm run host:check` as the host runs it, in its folder: its exit status and lines. */
function hostCheck(host: string, env: NodeJS.ProcessEnv) {
  const result = spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/host/check/check.ts"], {
    cwd: host,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(result.stderr).toBe("");
  return { status: result.status, lines: result.stdout.trim().split("\n") };
}

/** No host server runs here, so the gate line fails: the check never passes without one. */
const notGate = (line: string) => !line.startsWith("FAIL gate: ");

describe("host:check on a host with names of its own", { timeout: 120_000 }, () => {
  let host: Awaited<ReturnType<typeof installedHost>>;

  beforeAll(async () => {
    host = await installedHost("host-app-own-names");
  });

  afterAll(async () => {
    await host?.db.sql.end();
    if (host) rmSync(host.folders.parent, { recursive: true, force: true });
  });

  it("says every line ok, the names agreeing with the database, each table and column by the host's name", () => {
    const { status, lines } = hostCheck(host.folders.host, host.env);
    expect(status).toBe(1);
    expect(lines.filter((line) => !line.startsWith("ok "))).toEqual([expect.stringMatching(/^FAIL gate: /)]);
    expect(lines).toContain(
      "ok   names: Customer on Contact, User on Member, Referral on Deal, AuditEntry on ActivityLog (32 columns agree)",
    );
    expect(lines).toContain("ok   layout: normal (Member.roles and Deal.ownerId present)");
    expect(lines).toContainEqual(
      expect.stringMatching(/^ok {3}triggers: 6 of 6 present: Contact\.lead_intake_count_source_changes, /),
    );
    // No line names a table of the module's own names for the host's.
    expect(lines.filter((line) => /\b(customers|users|referrals|audit_entries)\b/.test(line))).toEqual([]);
  });

  it("before the module's migrations: the names agree, and its tables and triggers are left to them", async () => {
    const before = await hostDatabase(host.folders.host);
    try {
      const { lines } = hostCheck(host.folders.host, { ...host.env, DATABASE_URL: before.url });
      expect(lines.filter((line) => !line.startsWith("ok ") && notGate(line))).toEqual([]);
      expect(lines).toContainEqual(
        expect.stringMatching(/^ok {3}names: Customer on Contact, .* \(32 columns agree\)$/),
      );
      expect(lines).toContainEqual(
        expect.stringMatching(/^ok {3}tables: 0 of 9 present; the pending migrations create /),
      );
      expect(lines).toContain("ok   triggers: 0 of 6 present; the pending migrations create the rest");
      expect(lines).toContain("ok   grants for migrations: held");
    } finally {
      await before.sql.end();
    }
  });

  it("names each disagreement in one FAIL line with its fix, and exits 1", async () => {
    await host.db.sql.query(`
      ALTER TYPE "DealStage" RENAME VALUE 'Assigned' TO 'Given';
      ALTER TABLE "Deal" DROP COLUMN "notes";
      ALTER TABLE "Deal" ALTER COLUMN "ownerId" TYPE bigint;
      ALTER TABLE "Contact" ALTER COLUMN "createdAt" TYPE timestamptz(3);
      ALTER TABLE "Member" ALTER COLUMN "displayName" DROP NOT NULL;
      ALTER TABLE "ActivityLog" RENAME TO "ActivityLogs";`);
    const { status, lines } = hostCheck(host.folders.host, host.env);
    expect(status).toBe(1);
    const remap = "map the field to another column in lead-intake.config.json and run npm run host:install again";
    expect(lines.filter((line) => !line.startsWith("ok ") && notGate(line))).toEqual([
      "FAIL names: Customer.createdAt on Contact.createdAt: timestamp with time zone, where the names say timestamp " +
        "without time zone; make prisma/schema.prisma say what the database has and run npm run host:install " +
        "again, or change the column with a migration of the host's",
      "FAIL names: User.name on Member.displayName: nullable, where the module needs a value; make the column NOT " +
        "NULL with a migration of the host's, or make the host's field optional in prisma/schema.prisma and run npm " +
        "run host:install again",
      "FAIL names: Referral.status on Deal.stage: enum DealStage without Assigned, which the module writes; add it " +
        `with a migration of the host's: ALTER TYPE "DealStage" ADD VALUE 'Assigned';`,
      `FAIL names: Referral.remark on Deal.notes: no such column; add it with a migration of the host's, or ${remap}`,
      "FAIL names: Referral.assignedAgentId on Deal.ownerId: bigint, where the module writes integer; change the " +
        `column's type with a migration of the host's, or ${remap}`,
      "FAIL names: AuditEntry on table ActivityLog: the database has no such table; create it with a migration of " +
        "the host's, or name the host's model for AuditEntry in lead-intake.config.json and run npm run host:install " +
        "again",
    ]);
    expect(lines.filter((line) => line.startsWith("ok   names"))).toEqual([]);
  });
});

describe("host:check on a host in Prisma's default naming", { timeout: 120_000 }, () => {
  it("says every line ok, with the module's model names as the host's tables", async () => {
    const host = await installedHost("host-app-default-names");
    try {
      const { status, lines } = hostCheck(host.folders.host, host.env);
      expect(status).toBe(1);
      expect(lines.filter((line) => !line.startsWith("ok ") && notGate(line))).toEqual([]);
      expect(lines).toContain(
        "ok   names: Customer on Customer, User on User, Referral on Referral, AuditEntry on AuditEntry " +
          "(32 columns agree)",
      );
      expect(lines).toContain("ok   layout: normal (User.accessLevels and Referral.assignedAgentId present)");
    } finally {
      await host.db.sql.end();
      rmSync(host.folders.parent, { recursive: true, force: true });
    }
  });
});
