import type pg from "pg";
import { sourceListVersionSql } from "@/lib/db/store/sources";

/**
 * Every count the module keeps that differs from a real count(*) of referrals, one line each: per referrer, the total
 * of source leads, and source leads per block of ids. Empty when every kept count is exact.
 */
export async function countDrift(sql: pg.Pool | pg.Client): Promise<string[]> {
  const { rows } = await sql.query<{ drift: string }>(
    `WITH sourced AS (SELECT r.id FROM referrals r JOIN customers c ON c.id = r.referrer_customer_id AND c.kind = 'source')
     SELECT 'referrer ' || coalesce(k.id, r.id) || ': kept ' || coalesce(k.n, 0) || ', real ' || coalesce(r.n, 0) AS drift
     FROM (SELECT customer_id AS id, sum(total) AS n FROM lead_referrer_counts GROUP BY 1 HAVING sum(total) <> 0) k
     FULL JOIN (SELECT referrer_customer_id AS id, count(*) AS n FROM referrals GROUP BY 1) r ON r.id = k.id
     WHERE k.n IS DISTINCT FROM r.n
     UNION ALL
     SELECT 'source leads: kept ' || k.n || ', real ' || r.n
     FROM (SELECT coalesce(sum(total), 0) AS n FROM lead_source_lead_counts) k, (SELECT count(*) AS n FROM sourced) r
     WHERE k.n <> r.n
     UNION ALL
     SELECT 'block ' || coalesce(k.b, r.b) || ': kept ' || coalesce(k.n, 0) || ', real ' || coalesce(r.n, 0)
     FROM (SELECT block AS b, sum(total) AS n FROM lead_source_lead_blocks GROUP BY 1 HAVING sum(total) <> 0) k
     FULL JOIN (SELECT id / lead_intake_lead_block_size() AS b, count(*) AS n FROM sourced GROUP BY 1) r ON r.b = k.b
     WHERE k.n IS DISTINCT FROM r.n`,
  );
  return rows.map((r) => r.drift);
}

/** The version of the list of sources (the ETag of GET /api/leads/sources), as a number. */
export async function sourceListVersion(sql: pg.Pool | pg.Client): Promise<number> {
  const { rows } = await sql.query<{ version: string }>(sourceListVersionSql.sql);
  return Number(rows[0].version);
}
