import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readMigrations } from "@/lib/db/migrate";
import type { Db } from "@/lib/db/connect";
import { createLead } from "@/lib/leads/create-lead";
import { listLeads } from "@/lib/leads/list-leads";
import { createLeadBody } from "@/lib/leads/schemas";
import { cleanSourceName, sourceKey, WHITE_SPACE } from "@/lib/leads/source-name";
import { sourceKeyFunctionSql } from "@/scripts/source-key";
import { createDatabaseClient } from "@/lib/db/connect";
import { adminQuery, databaseUrl, sourceCount } from "../helpers/db";
import { validLead } from "../helpers/lead";

/**
 * The source-name key (decisions.md 13, docs/decisions.md, "The source-name key"): one rule in JavaScript and in the
 * migration's SQL twin, the same on a database whose LC_CTYPE is C and on one with a UTF-8 locale.
 */

const LOCALES = ["C", "C.UTF-8"] as const;

/** A fresh, empty database with this LC_CTYPE and LC_COLLATE. */
async function localeDatabase(locale: string): Promise<{ url: string; sql: pg.Pool }> {
  const name = `k_${randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE DATABASE "${name}" TEMPLATE template0 LC_CTYPE '${locale}' LC_COLLATE '${locale}'`);
  const url = databaseUrl(name);
  return { url, sql: new pg.Pool({ connectionString: url, max: 2 }) };
}

/** Every BMP code point PostgreSQL text can hold (no U+0000, no surrogate), alone and inside a name. */
function bmpSamples(): string[] {
  const samples: string[] = [];
  for (let cp = 1; cp < 0x10000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCharCode(cp);
    samples.push(c, ` A${c}${c}b ${c}\t`, `${c}Z`);
  }
  return samples;
}

describe("the rule itself", () => {
  it("takes as white space exactly what JavaScript's trim and \\s take (zod trims the referrer with it)", () => {
    const js: string[] = [];
    for (let cp = 1; cp < 0x10000; cp++) if (/\s/.test(String.fromCharCode(cp))) js.push(String.fromCharCode(cp));
    expect([...WHITE_SPACE]).toEqual(js);
    expect(cleanSourceName("\u00a0 Ads\t\u3000Partner \ufeff")).toBe("Ads Partner");
  });

  it("ignores case and white space runs, with one representative per case pair", () => {
    const same = [
      ["ÉCOLE Ads", "école  ads", "E\u0301COLE ADS"],
      ["Straße Ads", "STRAẞE ADS", "straße\tads"],
      ["İstanbul Ads", "ISTANBUL ADS", "istanbul ads", "ıstanbul ads"],
      ["ΟΔΟΣ Ads", "οδος ads", "Οδοσ ADS"],
      ["Ads\u00a0Partner", "ads partner", "\ufeffADS   PARTNER"],
    ];
    for (const group of same) expect(new Set(group.map(sourceKey))).toEqual(new Set([sourceKey(group[0])]));
    expect(sourceKey("Straße Ads")).not.toBe(sourceKey("Strasse Ads"));
  });

  it("is created by the source_key migration exactly as scripts/source-key.ts renders it from the rule's tables", async () => {
    const defining = (await readMigrations()).filter((m) => m.sql.includes(`FUNCTION "lead_intake_source_key"`));
    expect(defining.at(-1)?.sql).toContain(sourceKeyFunctionSql());
  });
});

describe.each(LOCALES)("on a database with LC_CTYPE %s", (locale) => {
  let db: { url: string; sql: pg.Pool };
  let prisma: Db;

  beforeAll(async () => {
    db = await localeDatabase(locale);
    const { rows } = await db.sql.query<{ ctype: string }>(
      `SELECT datctype AS ctype FROM pg_database WHERE datname = current_database()`,
    );
    expect(rows[0].ctype).toBe(locale);
    const migrations = await readMigrations();
    for (const migration of migrations) await db.sql.query(migration.sql);
    prisma = createDatabaseClient(db.url, 2);
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await db.sql.end();
  });

  it("computes in SQL the key JavaScript computes, for every BMP code point", async () => {
    const samples = bmpSamples();
    const { rows } = await db.sql.query<{ key: string }>(
      `SELECT lead_intake_source_key(s) AS key FROM unnest($1::text[]) WITH ORDINALITY u(s, n) ORDER BY n`,
      [samples],
    );
    const differing = samples.filter((s, i) => rows[i].key !== sourceKey(s));
    expect(differing.map((s) => [...s].map((c) => c.codePointAt(0)!.toString(16)).join(" "))).toEqual([]);
  });

  const HOST_SOURCES = [
    ["ÉCOLE Ads", "école ads"],
    ["Straße Ads", "STRAẞE  ADS"],
    ["İstanbul Ads", "ISTANBUL ADS"],
    ["Ads\u00a0Partner", "ads partner"],
    ["Tab\tAds", "TAB ADS"],
    ["Many   Spaces Ads", " many spaces ADS "],
  ];

  it.each(HOST_SOURCES)(
    "finds the host-added source %j by a POST and by the list filter named %j: one account",
    async (hostName, variant) => {
      const id = `src_host_${randomBytes(6).toString("hex")}`;
      await db.sql.query(`INSERT INTO customers (id, kind, name, source_type) VALUES ($1, 'source', $2, 'ads')`, [
        id,
        hostName,
      ]);
      const before = await sourceCount(db.sql);
      const lead = await createLead(
        prisma,
        createLeadBody.parse(validLead({ leadName: "Key Test", referrer: variant })),
      );
      expect(lead.referrer).toEqual({ customerId: id, name: hostName, type: "source" });
      expect(await sourceCount(db.sql)).toBe(before);
      for (const filter of [variant, hostName.trim()]) {
        const listed = await listLeads(prisma, { referrer: filter, limit: 10, offset: 0 });
        expect(listed.leads.map((l) => l.referralId)).toEqual([lead.referralId]);
      }
    },
  );

  it.each([
    ["İSTANBUL NEW", "istanbul new"],
    ["istanbul new 2", "İSTANBUL NEW 2"],
  ])("creates one account for %j then %j", async (first, second) => {
    const before = await sourceCount(db.sql);
    const a = await createLead(prisma, createLeadBody.parse(validLead({ leadName: "Key Test", referrer: first })));
    const b = await createLead(prisma, createLeadBody.parse(validLead({ leadName: "Key Test", referrer: second })));
    expect(b.referrer).toEqual(a.referrer);
    expect(a.referrer.name).toBe(first);
    expect(await sourceCount(db.sql)).toBe(before + 1);
  });
});

describe.each(LOCALES)("repairing keys stored before the rule (LC_CTYPE %s)", (locale) => {
  let db: { url: string; sql: pg.Pool };
  afterAll(() => db.sql.end());

  it("gives every registered source the key of its name under the rule, changing no host row", async () => {
    db = await localeDatabase(locale);
    const migrations = await readMigrations();
    const repair = migrations.findIndex((m) => m.name.endsWith("_source_key"));
    await db.sql.query(migrations[0].sql);
    // Host sources that the lead_intake backfill keyed by lower(), \s and btrim, oldest first.
    const host = [
      ["src_a", "ÉCOLE Ads", "2020-01-01"],
      ["src_b", "Ads\u00a0Partner", "2020-01-02"],
      ["src_c", "İstanbul Ads", "2020-01-03"],
      ["src_d", "ΟΔΟΣ Ads", "2020-01-04"],
      ["src_e", "\ufeffBOM Ads", "2020-01-05"],
      ["src_f", "école ads", "2020-01-06"],
    ];
    for (const [id, name, createdAt] of host) {
      await db.sql.query(
        `INSERT INTO customers (id, kind, name, source_type, created_at) VALUES ($1, 'source', $2, 'other', $3)`,
        [id, name, createdAt],
      );
    }
    for (const migration of migrations.slice(1, repair)) await db.sql.query(migration.sql);
    const customers = async () => (await db.sql.query(`SELECT * FROM customers ORDER BY id`)).rows;
    const hostRows = await customers();

    await db.sql.query(`BEGIN; ${migrations[repair].sql}; COMMIT`);

    expect(await customers()).toEqual(hostRows);
    const { rows } = await db.sql.query<{ key: string; customer_id: string }>(
      `SELECT key, customer_id FROM lead_source_names ORDER BY customer_id`,
    );
    expect(rows).not.toHaveLength(0);
    for (const row of rows) expect(row.key).toBe(sourceKey(host.find(([id]) => id === row.customer_id)![1]));
    const byKey = new Map(rows.map((r) => [r.key, r.customer_id]));
    expect(byKey.get("ads partner")).toBe("src_b");
    expect(byKey.get("istanbul ads")).toBe("src_c");
    expect(byKey.get("οδοσ ads")).toBe("src_d");
    expect(byKey.get("bom ads")).toBe("src_e");
    // ÉCOLE Ads and école ads share a key once migrated: a key that was already right stays with its source (on C, the
    // backfill keyed src_a 'École ads', so 'école ads' named src_f); else the oldest has it.
    expect(byKey.get("école ads")).toBe(locale === "C" ? "src_f" : "src_a");
  });
});
