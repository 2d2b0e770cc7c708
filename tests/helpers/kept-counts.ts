import type pg from "pg";
import { sourceListVersionSql } from "@/lib/db/store/sources";

/** The kept counts of source records per key: the table, its key columns, and the same keys of `sourced` below. */
const KEYED_COUNTS = [
  { table: "lead_source_lead_blocks", keys: { block: "block" } },
  { table: "lead_source_lead_groups", keys: { block_group: "block_group" } },
  { table: "lead_per_source_lead_blocks", keys: { customer_id: "source", block: "block" } },
  { table: "lead_per_source_lead_groups", keys: { customer_id: "source", block_group: "block_group" } },
];

/** One drift line per key of `table` whose kept sum differs from the count of `sourced` records with that key. */
function keyedDriftSql({ table, keys }: (typeof KEYED_COUNTS)[number]): string {
  const kept = Object.keys(keys);
  const real = Object.values(keys);
  const key = real.map((k, i) => `'${kept[i]} ' || coalesce(k.${k}, r.${k})`).join(" || ' ' || ");
  return `SELECT '${table} ' || ${key} || ': kept ' || coalesce(k.n, 0) || ', real ' || coalesce(r.n, 0)
     FROM (SELECT ${kept.map((k, i) => `${k} AS ${real[i]}`).join(", ")}, sum(total) AS n FROM ${table}
           GROUP BY ${real.join(", ")} HAVING sum(total) <> 0) k
     FULL JOIN (SELECT ${real.join(", ")}, count(*) AS n FROM sourced GROUP BY ${real.join(", ")}) r
       ON ${real.map((k) => `r.${k} = k.${k}`).join(" AND ")}
     WHERE k.n IS DISTINCT FROM r.n`;
}

/**
 * Every count the module keeps that differs from a real count(*) of referrals, one line each: per referrer, the total
 * of source leads, source leads per block and per group of blocks, and each source's per block and per group. Empty
 * when every kept count is exact.
 */
export async function countDrift(sql: pg.Pool | pg.Client): Promise<string[]> {
  const { rows } = await sql.query<{ drift: string }>(
    `WITH sourced AS (
       SELECT r.id, r.referrer_customer_id AS source, r.id / lead_intake_lead_block_size() AS block,
              r.id / lead_intake_lead_block_size() / lead_intake_lead_block_size() AS block_group
       FROM referrals r JOIN customers c ON c.id = r.referrer_customer_id AND c.kind = 'source')
     SELECT 'referrer ' || coalesce(k.id, r.id) || ': kept ' || coalesce(k.n, 0) || ', real ' || coalesce(r.n, 0) AS drift
     FROM (SELECT customer_id AS id, sum(total) AS n FROM lead_referrer_counts GROUP BY 1 HAVING sum(total) <> 0) k
     FULL JOIN (SELECT referrer_customer_id AS id, count(*) AS n FROM referrals GROUP BY 1) r ON r.id = k.id
     WHERE k.n IS DISTINCT FROM r.n
     UNION ALL
     SELECT 'source leads: kept ' || k.n || ', real ' || r.n
     FROM (SELECT coalesce(sum(total), 0) AS n FROM lead_source_lead_counts) k, (SELECT count(*) AS n FROM sourced) r
     WHERE k.n <> r.n
     UNION ALL
     ${KEYED_COUNTS.map(keyedDriftSql).join("\n     UNION ALL\n     ")}`,
  );
  return rows.map((r) => r.drift);
}

/** The version of the list of sources (the ETag of GET /api/leads/sources), as a number. */
export async function sourceListVersion(sql: pg.Pool | pg.Client): Promise<number> {
  const { rows } = await sql.query<{ version: string }>(sourceListVersionSql.sql);
  return Number(rows[0].version);
}
