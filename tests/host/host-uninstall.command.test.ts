import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabaseClient } from "@/lib/db/connect";
import { migrate } from "@/lib/db/migrate";
import { createLead } from "@/lib/leads/create-lead";
import { createLeadBody } from "@/lib/leads/schemas";
import type { TestDatabase } from "../helpers/db";
import { catalog, HOST_MIGRATION, hostDatabase } from "../helpers/host-database";
import { filesOf, hostCopy, runHostScript, snapshot } from "../helpers/host-install-run";

/**
 * `npm run host:uninstall` on a copy of the fixture host after `host:install`, the host's own migration, the module's
 * migrations and a lead: the host's files are again those from before the install (but the one it edited, named and
 * kept), the module's triggers, functions, tables and migration rows are gone, and every host row stays.
 */
const EDITED = "lib/leads/text.ts";

let folders: ReturnType<typeof hostCopy>;
let db: TestDatabase;
let filesBefore: Map<string, string>;
let catalogBefore: string[];
let rowsBefore: Record<string, unknown[]>;
let leadId: number;

async function hostRows(): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const table of ["customers", "users", "referrals", "audit_entries"])
    rows[table] = (await db.sql.query(`SELECT * FROM ${table} ORDER BY id`)).rows;
  return rows;
}

const uninstall = (...args: string[]) => runHostScript("uninstall", [folders.host, ...args], { DATABASE_URL: db.url });

beforeAll(async () => {
  folders = hostCopy();
  // The host's database as `prisma migrate deploy` left it, with rows of its own.
  db = await hostDatabase(folders.host);
  await db.sql.query(`
    INSERT INTO customers (id, kind, name) VALUES ('cus_own_source', 'source', 'Host Roadshow'), ('cus_own', 'person', 'Own');
    INSERT INTO users (platform_id, name, email) VALUES ('plat-1', 'Siti Sales', 'siti@example.com');
    INSERT INTO referrals (referrer_customer_id, lead_name, status) VALUES ('cus_own_source', 'Host Lead', 'New');
    INSERT INTO audit_entries (referral_id, action, actor) VALUES (1, 'created', 'host');`);
  filesBefore = filesOf(snapshot(folders.host));
  catalogBefore = await catalog(db.sql);
  rowsBefore = await hostRows();

  const installed = runHostScript("install", [folders.host]);
  expect(installed.status, installed.stderr).toBe(0);
  await migrate(db.url);
  const client = createDatabaseClient(db.url, 2);
  try {
    const lead = await createLead(
      client,
      createLeadBody.parse({ leadName: "Module Lead", leadMobileNumber: "0123456789", referrer: "Host Roadshow" }),
    );
    leadId = lead.referralId;
  } finally {
    await client.$disconnect();
  }
  appendFileSync(path.join(folders.host, EDITED), "// the host's own line\n");
}, 120_000);

afterAll(async () => {
  await db?.sql.end();
  if (folders) rmSync(folders.parent, { recursive: true, force: true });
});

describe("npm run host:uninstall", { timeout: 120_000 }, () => {
  it("without --yes: says what it would remove and drop, and changes nothing", async () => {
    const files = snapshot(folders.host);
    const objects = await catalog(db.sql);
    const result = uninstall();
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("- database: drop triggers customers.lead_intake_count_source_changes,");
    expect(result.stdout).toContain(`- kept, edited by the host: ${EDITED}`);
    expect(result.stdout.trim().split("\n").at(-1)).toBe("Nothing was changed; run again with --yes to do it.");
    expect(snapshot(folders.host)).toEqual(files);
    expect(await catalog(db.sql)).toEqual(objects);
  });

  it("with --yes but no DATABASE_URL: refuses in one line and changes nothing", async () => {
    const files = snapshot(folders.host);
    const objects = await catalog(db.sql);
    const result = runHostScript("uninstall", [folders.host, "--yes"], { DATABASE_URL: "" });
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      status: 1,
      stdout: "",
      stderr:
        "host:uninstall: DATABASE_URL is not set (in the environment or the host's .env files); nothing was changed.\n",
    });
    expect(snapshot(folders.host)).toEqual(files);
    expect(await catalog(db.sql)).toEqual(objects);
  });

  it("with --yes, when a host object depends on a module table: says so in one line and changes nothing", async () => {
    await db.sql.query("CREATE VIEW host_lead_totals AS SELECT customer_id, total FROM lead_referrer_counts");
    try {
      const files = snapshot(folders.host);
      const objects = await catalog(db.sql);
      const result = uninstall("--yes");
      expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
        status: 1,
        stdout: "",
        stderr:
          "host:uninstall: the module's database objects could not be dropped (database-error 2BP01: cannot drop " +
          "table lead_referrer_counts because other objects depend on it (view host_lead_totals depends on table " +
          "lead_referrer_counts)); nothing was changed.\n",
      });
      expect(snapshot(folders.host)).toEqual(files);
      expect(await catalog(db.sql)).toEqual(objects);
    } finally {
      await db.sql.query("DROP VIEW host_lead_totals");
    }
  });

  it("with --yes: the host's files are those from before the install, but the one it edited, named and kept", () => {
    // As `next dev` leaves it: route types naming the module's routes, which would fail the host's next build.
    mkdirSync(path.join(folders.host, ".next/dev/types"), { recursive: true });
    writeFileSync(path.join(folders.host, ".next/dev/types/validator.ts"), 'import "../../../app/api/leads/route";\n');
    const result = uninstall("--yes");
    expect(result.status, result.stderr).toBe(0);
    expect(existsSync(path.join(folders.host, ".next/dev/types"))).toBe(false);
    expect(result.stdout).toContain(`- kept, edited by the host: ${EDITED}`);
    const edited = createHash("sha256")
      .update(readFileSync(path.join(folders.host, EDITED)))
      .digest("hex");
    expect(filesOf(snapshot(folders.host))).toEqual(new Map([...filesBefore, [EDITED, edited]]));
  });

  it("drops the module's triggers, functions, tables and migration rows; the host's objects and rows stay", async () => {
    const after = await catalog(db.sql);
    expect(after.filter((name) => /lead_intake|^table lead_/.test(name))).toEqual([]);
    // Indexes on the host's tables stay (the host may have had them); everything else is as before the install.
    expect(after.filter((name) => !name.startsWith("index "))).toEqual(
      catalogBefore.filter((name) => !name.startsWith("index ")),
    );
    expect(after).toEqual(expect.arrayContaining(catalogBefore));
    const { rows } = await db.sql.query(`SELECT migration_name FROM "_prisma_migrations" ORDER BY 1`);
    expect(rows).toEqual([{ migration_name: HOST_MIGRATION }]);
    const rowsAfter = await hostRows();
    // Every row from before, and the lead's: its customer, referral and audit entry.
    const added = { customers: 1, users: 0, referrals: 1, audit_entries: 1 };
    for (const [table, before] of Object.entries(rowsBefore)) {
      expect(rowsAfter[table]).toEqual(expect.arrayContaining(before));
      expect(rowsAfter[table].length - before.length, table).toBe(added[table as keyof typeof added]);
    }
    const lead = await db.sql.query("SELECT lead_name FROM referrals WHERE id = $1", [leadId]);
    expect(lead.rows).toEqual([{ lead_name: "Module Lead" }]);
  });

  it("run again: the module is no longer installed", () => {
    const result = uninstall("--yes");
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 1,
      stderr: `host:uninstall: ${folders.host} has no .lead-intake-module.json: the module is not installed; nothing was changed.\n`,
    });
  });
});
