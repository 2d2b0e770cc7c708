import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, readMigrations } from "@/lib/db/migrate";
import { createDatabaseClient, type Db } from "@/lib/db/connect";
import { createLead } from "@/lib/leads/create-lead";
import { listLeads } from "@/lib/leads/list-leads";
import { createLeadBody } from "@/lib/leads/schemas";
import { cleanSourceName, sourceKey } from "@/lib/leads/source-name";
import { listSources } from "@/lib/leads/sources/list-sources";
import { ensureConfiguredSources } from "@/lib/startup/configured-sources";
import { adminQuery, type TestDatabase } from "../helpers/db";
import {
  HOST,
  KEYS_AFTER_CONFIGURED_SOURCES,
  createHostDatabase,
  migrationRecords,
  snapshotRows,
  sourceNames,
} from "../helpers/host-install";

/**
 * Several server processes on one host database (each layout's own install is in
 * host-install-{normal,legacy,no-assignment}.test.ts). Each process applies
 * pending migrations before its first request, serialised by the advisory lock;
 * each has its own pool; a new source name is created once across all of them,
 * because lead_source_names' primary key decides.
 */

let db: TestDatabase;
let processes: Db[];

beforeAll(async () => {
  db = await createHostDatabase("normal");
  // Two server processes: two clients from the service's own factory, each with its own pool.
  processes = [createDatabaseClient(db.url, 2), createDatabaseClient(db.url, 2)];
});
afterAll(async () => {
  await Promise.all(processes.map((p) => p.$disconnect()));
  await db.sql.end();
});

describe("several server processes against one existing host database", () => {
  it("start together: each migration is applied exactly once between them, in order, and no host row changes", async () => {
    const before = await snapshotRows(db.sql);
    const results = await Promise.all([migrate(db.url), migrate(db.url), migrate(db.url), migrate(db.url)]);
    const names = (await readMigrations()).map((m) => m.name);
    // Each migration is its own transaction under the lock, so the runners may share the list.
    expect(results.flat().sort()).toEqual(names);
    expect((await migrationRecords(db.sql)).map((r) => r.migration_name)).toEqual(names);
    expect(await snapshotRows(db.sql)).toEqual(before);
  });

  it("create the configured default sources once between them", async () => {
    await Promise.all([...processes, ...processes].map((p) => ensureConfiguredSources(p)));
    const { sources } = await listSources(processes[0]);
    const count = (name: string) => sources.filter((s) => sourceKey(s.name) === name).length;
    expect(["google ads", "tiktok ads", "website form"].map(count)).toEqual([1, 1, 1]);
    // The host's "FaceBook  Ads" is the configured "Facebook Ads": none was added.
    expect(sources.filter((s) => /facebook/i.test(s.name)).map((s) => s.name)).toEqual(["FaceBook  Ads"]);
    expect((await sourceNames(db.sql)).map((r) => r.key)).toEqual(KEYS_AFTER_CONFIGURED_SOURCES);
  });

  it("name one new source at once in several spellings: one account, every lead on it", async () => {
    const spellings = ["Expo Penang 2026", "expo penang 2026", "  EXPO   Penang 2026 ", "Expo  penang  2026"];
    const requests = Array.from({ length: 12 }, (_, i) =>
      createLead(
        processes[i % 2],
        createLeadBody.parse({
          leadName: `Expo Lead ${i}`,
          leadMobileNumber: `01234567${String(i).padStart(2, "0")}`,
          referrer: spellings[i % 4],
        }),
      ),
    );
    const leads = await Promise.all(requests);
    const accounts = new Set(leads.map((l) => l.referrer.customerId));
    expect(accounts.size).toBe(1);
    const [account] = accounts;
    expect(await sourceNames(db.sql)).toContainEqual({ key: "expo penang 2026", customer_id: account });
    const { rows } = await db.sql.query(
      "SELECT id, name, source_type FROM customers WHERE kind = 'source' AND lead_intake_source_key(name) LIKE '%expo%penang%'",
    );
    expect(rows).toEqual([{ id: account, name: leads[0].referrer.name, source_type: "other" }]);
    expect(spellings.map(cleanSourceName)).toContain(leads[0].referrer.name);
    const counted = await db.sql.query("SELECT count(*)::int AS n FROM referrals WHERE referrer_customer_id = $1", [
      account,
    ]);
    expect(counted.rows[0].n).toBe(12);
  });

  it("can run as a role that may only read and write data, once the migrations are applied", async () => {
    const role = `app_${randomBytes(4).toString("hex")}`;
    await adminQuery(`CREATE ROLE ${role} LOGIN PASSWORD 'app'`);
    await db.sql.query(`GRANT USAGE ON SCHEMA public TO ${role};
      GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO ${role};
      GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
    const url = db.url.replace(/\/\/[^@]*@/, `//${role}:app@`);
    expect(await migrate(url)).toEqual([]);
    const app = createDatabaseClient(url, 2);
    try {
      await ensureConfiguredSources(app);
      const lead = await createLead(
        app,
        createLeadBody.parse({
          leadName: "Least Privilege",
          leadMobileNumber: "0123000000",
          referrer: "Brand New Source",
        }),
      );
      expect(lead.status).toBe("Pending");
      const { leads } = await listLeads(app, { referrer: "brand new source", limit: 10, offset: 0 });
      expect(leads.map((l) => l.referralId)).toEqual([lead.referralId]);
    } finally {
      await app.$disconnect();
    }
  });

  it("leave the host's own application role working: it writes referrals with only the grants it had before", async () => {
    const host = await createHostDatabase("normal");
    try {
      const role = `host_app_${randomBytes(4).toString("hex")}`;
      await adminQuery(`CREATE ROLE ${role} LOGIN PASSWORD 'host'`);
      // The host's grants, made before the module existed: its own tables only.
      await host.sql.query(`GRANT USAGE ON SCHEMA public TO ${role};
        GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA public TO ${role};
        GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
      await migrate(host.url);
      const hostApp = new pg.Client({ connectionString: host.url.replace(/\/\/[^@]*@/, `//${role}:host@`) });
      await hostApp.connect();
      try {
        const { rows } = await hostApp.query(
          `INSERT INTO referrals (referrer_customer_id, lead_name, status) VALUES ($1, 'Host Written', 'Pending') RETURNING id`,
          [HOST.walkIn],
        );
        await hostApp.query("UPDATE referrals SET referrer_customer_id = $1 WHERE id = $2", [
          HOST.facebook,
          rows[0].id,
        ]);
        await hostApp.query("DELETE FROM referrals WHERE id = $1", [rows[0].id]);
        await hostApp.query(
          "INSERT INTO referrals (referrer_customer_id, lead_name, status) VALUES ($1, 'Kept', 'New')",
          [HOST.walkIn],
        );
      } finally {
        await hostApp.end();
      }
      // The module's per-referrer totals followed the host's writes.
      const { rows: totals } = await host.sql.query(
        `SELECT c.id, (SELECT count(*) FROM referrals r WHERE r.referrer_customer_id = c.id)::int AS real,
                (SELECT coalesce(sum(n.total), 0) FROM lead_referrer_counts n WHERE n.customer_id = c.id)::int AS kept
         FROM customers c ORDER BY c.id`,
      );
      for (const row of totals) expect(row.kept, row.id).toBe(row.real);
    } finally {
      await host.sql.end();
    }
  });
});
