import type pg from "pg";
import { statementName } from "@/lib/db/statement-name";
import { existingReferrer, insertLeadStatement } from "@/lib/leads/create-lead";
import { newCustomerId } from "@/lib/leads/ids";
import type { CreateLeadInput } from "@/lib/leads/schemas";

/**
 * The service's creation statement for an existing referrer and no agent, run
 * directly through pg: the same SQL, values and prepared-statement name the service sends.
 * The bare server and the database-limit run both use it.
 */
export async function createLeadWithPg(pool: pg.Pool, input: CreateLeadInput): Promise<{ referralId: number }> {
  const statement = insertLeadStatement(input, existingReferrer(input.referrer), null, newCustomerId("person"));
  const { rows } = await pool.query<{ id: number }>({
    name: statementName(statement.text),
    text: statement.text,
    values: statement.values,
  });
  if (!rows.length) throw new Error("the benchmark's referrer has no account");
  return { referralId: rows[0].id };
}
