import { randomBytes } from "node:crypto";
import type pg from "pg";
import { expect } from "vitest";
import { sourceKey } from "@/lib/leads/source-name";
import { OPTIONAL_FIELD_NAMES } from "@/lib/leads/fields";
import { call } from "./api";

/**
 * Rows for the read-operation tests, written with plain SQL the way the host CRM
 * (or a legacy import) would write them, so the tests do not depend on the code
 * under test to arrange their data.
 */

/** ListedLead: every documented field, no other (spec "Listed lead"). */
export const LISTED_LEAD_KEYS = [
  "referralId",
  "leadCustomerId",
  "leadName",
  "leadMobileNumber",
  "referrer",
  "assignedAgentId",
  "status",
  ...OPTIONAL_FIELD_NAMES,
  "createdAt",
].sort();

/** createdAt as the spec shows it: ISO 8601 with a millisecond fraction and Z. */
export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export const keysOf = (value: object) => Object.keys(value).sort();

/** The read paths and their aliases. */
export const READ_PATHS = [
  "/api/leads/sources",
  "/api/leads/ads",
  "/api/sources",
  "/api/leads/agents",
  "/api/agents",
  "/api/leads",
];

export async function insertUser(
  sql: pg.Pool,
  user: { name: string; platformId?: string | null; accessLevels?: string[] | null },
): Promise<number> {
  const columns = ["name", "platform_id"];
  const values: unknown[] = [user.name, user.platformId ?? null];
  if (user.accessLevels !== undefined) {
    columns.push("access_levels");
    values.push(user.accessLevels);
  }
  const placeholders = values.map((_, i) => `$${i + 1}`).join(", ");
  const { rows } = await sql.query<{ id: number }>(
    `INSERT INTO users (${columns.join(", ")}) VALUES (${placeholders}) RETURNING id`,
    values,
  );
  return rows[0].id;
}

export async function insertPerson(sql: pg.Pool, name: string): Promise<string> {
  const id = `cus_${randomBytes(8).toString("hex")}`;
  await sql.query(`INSERT INTO customers (id, kind, name, mobile_number) VALUES ($1, 'person', $2, '60123000000')`, [
    id,
    name,
  ]);
  return id;
}

/** A source account as the migration registers host sources: the account and its normalised name key. */
export async function insertSource(sql: pg.Pool, name: string, type: "ads" | "other" = "other"): Promise<string> {
  const id = `src_${randomBytes(8).toString("hex")}`;
  await sql.query(`INSERT INTO customers (id, kind, name, source_type) VALUES ($1, 'source', $2, $3)`, [
    id,
    name,
    type,
  ]);
  await sql.query(`INSERT INTO lead_source_names (key, customer_id) VALUES ($1, $2)`, [sourceKey(name), id]);
  return id;
}

/**
 * `count` complete referral rows of the given referrer in one statement (ids
 * ascending in insertion order); returns their ids.
 */
export async function insertReferrals(
  sql: pg.Pool,
  referrerId: string,
  count: number,
  label = "Bulk",
): Promise<number[]> {
  const { rows } = await sql.query<{ id: number }>(
    `INSERT INTO referrals (referrer_customer_id, lead_name, mobile_number, status, state, city, address,
                            relationship, project_type, remark)
     SELECT $1, $2 || ' ' || g, '6012' || lpad(g::text, 7, '0'), 'Pending', 'Selangor', 'Shah Alam', '',
            'Other', 'OTHERS', ''
     FROM generate_series(1, $3::int) AS g
     ORDER BY g
     RETURNING id`,
    [referrerId, label, count],
  );
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

/** Source accounts by name, as GET /api/leads/sources lists them. */
export async function sourcesByName(): Promise<Map<string, { id: string; name: string; type: string }>> {
  const res = await call("GET", "/api/leads/sources");
  expect(res.status).toBe(200);
  return new Map(res.body.sources.map((s: { id: string; name: string; type: string }) => [s.name, s]));
}

/** GET /api/leads with the given query, asserting a 200. */
export async function listLeads(query = ""): Promise<{ leads: any[]; pagination: any }> {
  const res = await call("GET", `/api/leads${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Every page, following the spec: offset += limit until hasMore is false. */
export async function allPages(limit: number, referrer?: string): Promise<{ pages: any[]; ids: number[] }> {
  const pages: any[] = [];
  const ids: number[] = [];
  for (let offset = 0; ; offset += limit) {
    const filter = referrer === undefined ? "" : `&referrer=${encodeURIComponent(referrer)}`;
    const page = await listLeads(`?limit=${limit}&offset=${offset}${filter}`);
    pages.push(page);
    ids.push(...page.leads.map((lead: { referralId: number }) => lead.referralId));
    if (!page.pagination.hasMore) return { pages, ids };
  }
}
