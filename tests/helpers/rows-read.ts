import type pg from "pg";
import type { Statement } from "@/lib/db/statement-template";

/** How many records of `table` a query reads (rows returned and rows its filters removed), from EXPLAIN ANALYZE. */
export async function rowsRead(sql: pg.Pool, query: Statement, table = "referrals"): Promise<number> {
  const { rows } = await sql.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${query.text}`, query.values);
  let read = 0;
  const visit = (node: Record<string, any>) => {
    if (node["Relation Name"] === table)
      read += (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0)) * node["Actual Loops"];
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(rows[0]["QUERY PLAN"][0].Plan);
  return read;
}
