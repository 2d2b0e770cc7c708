import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { ensureConfiguredSources } from "@/lib/startup/configured-sources";
import { call, post } from "../helpers/api";
import { hostClient } from "../helpers/dashboards";
import { createTestDatabase, type TestDatabase } from "../helpers/db";

/**
 * Spec rule 3 for sources the host creates after the migration, with its own SQL:
 * they have no lead_source_names key, and are still "existing source names" (case
 * and repeated spaces ignored), so naming one never creates a second account.
 */
let db: TestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = hostClient(db.url);
});
afterAll(async () => {
  await prisma.$disconnect();
  await db.sql.end();
});

async function addHostSource(id: string, name: string, createdAt: string): Promise<void> {
  await db.sql.query(
    `INSERT INTO customers (id, kind, name, source_type, created_at) VALUES ($1, 'source', $2, 'other', $3)`,
    [id, name, createdAt],
  );
}

async function sourceAccounts(): Promise<number> {
  const { rows } = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM customers WHERE kind = 'source'`);
  return rows[0].n;
}

describe("sources the host added after the migration", () => {
  beforeAll(async () => {
    // The first request prepares the database: the configured sources get their accounts and keys.
    expect((await call("GET", "/api/leads/sources")).status).toBe(200);
    await addHostSource("src_host_trade_fair_new", "trade fair kl", "2026-03-01T00:00:00Z");
    await addHostSource("src_host_trade_fair_old", "Trade  Fair KL", "2026-01-01T00:00:00Z");
    await addHostSource("src_host_road_show", "Road  Show JB", "2026-02-01T00:00:00Z");
    // Same normalised name as the registered "Facebook Ads".
    await addHostSource("src_host_facebook_copy", "FACEBOOK ADS", "2020-01-01T00:00:00Z");
  });

  it("are used by POST under any case or spacing, the oldest of two spellings first, and no account is created", async () => {
    const before = await sourceAccounts();
    const res = await post({
      leadName: "Fair Visitor",
      leadMobileNumber: "0123456789",
      referrer: "  TRADE fair   kl ",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.lead.referrer).toEqual({
      customerId: "src_host_trade_fair_old",
      name: "Trade  Fair KL",
      type: "source",
    });
    expect(await sourceAccounts()).toBe(before);
  });

  it("are found by the list filter under any spelling", async () => {
    const res = await call("GET", `/api/leads?referrer=${encodeURIComponent("trade FAIR kl")}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.leads.map((l: { leadName: string }) => l.leadName)).toEqual(["Fair Visitor"]);
    expect(res.body.leads[0].referrer.customerId).toBe("src_host_trade_fair_old");
    expect(res.body.pagination.total).toBe(1);
  });

  it("are still named by their id", async () => {
    const res = await post({
      leadName: "Id Visitor",
      leadMobileNumber: "0123456789",
      referrer: "src_host_trade_fair_new",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.lead.referrer.customerId).toBe("src_host_trade_fair_new");
  });

  it("come after an exact source id, even when a host source is named like that id", async () => {
    await addHostSource("src_host_named_like_an_id", "src_host_road_show", "2019-01-01T00:00:00Z");
    const res = await post({
      leadName: "Show Visitor",
      leadMobileNumber: "0123456789",
      referrer: "src_host_road_show",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.lead.referrer.customerId).toBe("src_host_road_show");
  });

  it("come after a registered source of the same name", async () => {
    const { rows } = await db.sql.query<{ customer_id: string }>(
      `SELECT customer_id FROM lead_source_names WHERE key = 'facebook ads'`,
    );
    const res = await post({ leadName: "Ad Visitor", leadMobileNumber: "0123456789", referrer: "facebook ads" });
    expect(res.status, res.text).toBe(201);
    expect(res.body.lead.referrer.customerId).toBe(rows[0].customer_id);
    expect(res.body.lead.referrer.customerId).not.toBe("src_host_facebook_copy");
  });

  it("are not created again as configured default sources", async () => {
    const before = await sourceAccounts();
    const configured = process.env.LEADS_DEFAULT_SOURCES;
    process.env.LEADS_DEFAULT_SOURCES = JSON.stringify([{ name: "road show jb", type: "ads" }]);
    try {
      await ensureConfiguredSources(prisma);
    } finally {
      if (configured === undefined) delete process.env.LEADS_DEFAULT_SOURCES;
      else process.env.LEADS_DEFAULT_SOURCES = configured;
    }
    expect(await sourceAccounts()).toBe(before);
  });

  it("leave a genuinely new name to create one account", async () => {
    const before = await sourceAccounts();
    const res = await post({ leadName: "New Visitor", leadMobileNumber: "0123456789", referrer: "Trade Fair Penang" });
    expect(res.status, res.text).toBe(201);
    expect(res.body.lead.referrer.customerId).toMatch(/^src_/);
    expect(await sourceAccounts()).toBe(before + 1);
  });
});
