import { randomBytes } from "node:crypto";
import type pg from "pg";
import { expect } from "vitest";
import { authorised, sendRaw } from "./hostile";
import { countDrift } from "./kept-counts";
import { validLead } from "./lead";

/**
 * The crash invariant, for any deployment killed under POST load (tests/scale-out/crash.stress.ts,
 * tests/scale-out/pooled.stress.ts): every acknowledged lead (201) is stored with its lead
 * customer and exactly one audit entry; nothing else is stored except leads whose answer
 * was lost in the crash; no orphan rows; every kept count is exact.
 */
const CLIENTS = 8;

interface Sent {
  leadName: string;
  /** The answer: 201 with its ids, another status, or no answer at all (the connection broke). */
  acknowledged?: { referralId: number; leadCustomerId: string };
}

export interface PostLoad {
  /** Stops the clients and waits for their last requests. */
  stop(): Promise<Sent[]>;
}

/**
 * CLIENTS loops of POSTs to `target()` (read before each request, so a restarted server can take over); half name a new
 * source.
 */
export function postUnderLoad(target: () => string): PostLoad & { run: string } {
  const run = randomBytes(3).toString("hex");
  const sent: Sent[] = [];
  let stop = false;
  const clients = Array.from({ length: CLIENTS }, async (_, c) => {
    for (let i = 0; !stop; i++) {
      const leadName = `Crash Lead ${run} ${c}-${i}`;
      // Half name a new source, so that source creation is inside the crash window too.
      const referrer = i % 2 ? "Facebook Ads" : `Crash Source ${run} ${c}-${i}`;
      const entry: Sent = { leadName };
      sent.push(entry);
      try {
        const response = await sendRaw(
          authorised("POST", "/api/leads", validLead({ leadName, referrer })),
          target(),
          20_000,
        );
        if (response.status === 201) entry.acknowledged = JSON.parse(response.text).lead;
        else await new Promise((resolve) => setTimeout(resolve, 50)); // refused while the service is down
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50)); // no answer: the server is down
      }
    }
  });
  return {
    run,
    async stop() {
      stop = true;
      await Promise.all(clients);
      return sent;
    },
  };
}

/** Checks the invariant on the database behind `sql`; returns the figures for the log line. */
export async function expectCrashInvariant(
  sql: pg.Pool,
  run: string,
  sent: Sent[],
): Promise<{ sent: number; acknowledged: number; stored: number }> {
  const acknowledged = sent.filter((s) => s.acknowledged);
  expect(acknowledged.length).toBeGreaterThan(0);
  const { rows } = await sql.query<{
    id: number;
    lead_name: string;
    lead_customer_id: string;
    customer_name: string | null;
    audits: number;
  }>(
    `SELECT r.id, r.lead_name, r.lead_customer_id, c.name AS customer_name,
            (SELECT count(*)::int FROM audit_entries a WHERE a.referral_id = r.id) AS audits
       FROM referrals r LEFT JOIN customers c ON c.id = r.lead_customer_id
      WHERE r.lead_name LIKE $1`,
    [`Crash Lead ${run} %`],
  );
  const stored = new Map(rows.map((r) => [r.lead_name, r]));
  // Every acknowledged lead, exactly as answered, with its customer and one audit entry.
  for (const { leadName, acknowledged: ack } of acknowledged) {
    expect(stored.get(leadName)).toEqual({
      id: ack!.referralId,
      lead_name: leadName,
      lead_customer_id: ack!.leadCustomerId,
      customer_name: leadName,
      audits: 1,
    });
  }
  // Whatever else is stored was sent (its answer lost in a crash), and is whole too.
  const names = new Set(sent.map((s) => s.leadName));
  for (const row of rows) {
    expect(names.has(row.lead_name)).toBe(true);
    expect({ customer: row.customer_name, audits: row.audits }).toEqual({ customer: row.lead_name, audits: 1 });
  }
  expect(rows.length).toBeLessThanOrEqual(sent.length);

  const orphans = await sql.query<Record<string, number>>(`
    SELECT (SELECT count(*)::int FROM audit_entries a WHERE NOT EXISTS (SELECT 1 FROM referrals r WHERE r.id = a.referral_id)) AS audits_without_referral,
           (SELECT count(*)::int FROM referrals r WHERE NOT EXISTS (SELECT 1 FROM audit_entries a WHERE a.referral_id = r.id)) AS referrals_without_audit,
           (SELECT count(*)::int FROM customers c WHERE c.kind = 'person'
              AND NOT EXISTS (SELECT 1 FROM referrals r WHERE r.lead_customer_id = c.id)) AS persons_without_referral,
           (SELECT count(*)::int FROM customers c WHERE c.kind = 'source'
              AND NOT EXISTS (SELECT 1 FROM lead_source_names n WHERE n.customer_id = c.id)) AS sources_without_name_key,
           (SELECT count(*)::int FROM lead_source_names n WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.id = n.customer_id)) AS name_keys_without_source`);
  expect(orphans.rows[0]).toEqual({
    audits_without_referral: 0,
    referrals_without_audit: 0,
    persons_without_referral: 0,
    sources_without_name_key: 0,
    name_keys_without_source: 0,
  });
  // Every count kept by trigger (per referrer, source leads, blocks) equals the rows.
  expect(await countDrift(sql)).toEqual([]);
  return { sent: sent.length, acknowledged: acknowledged.length, stored: rows.length };
}
