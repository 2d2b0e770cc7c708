import type pg from "pg";
import { StatementNames } from "@/lib/db/statements";
import { insertLeadStatement } from "@/lib/leads/lead-rows";
import { newCustomerId } from "@/lib/leads/ids";
import type { CreateLeadInput } from "@/lib/leads/schemas";

/**
 * The service's creation statement for an existing referrer and no agent, run
 * directly through pg: the same SQL, values and prepared-statement name the service sends.
 * The bare server and the database-limit run both use it.
 */
// Named as the service names it (lib/db/statements.ts), so PostgreSQL plans it once per connection.
const names = new StatementNames();

export async function createLeadWithPg(pool: pg.Pool, input: CreateLeadInput): Promise<{ referralId: number }> {
  const statement = insertLeadStatement(input, { existing: input.referrer }, null, newCustomerId("person"));
  const { rows } = await pool.query<{ id: number }>({ name: names.name(statement.text), text: statement.text, values: statement.values });
  if (!rows.length) throw new Error("the benchmark's referrer has no account");
  return { referralId: rows[0].id };
}
