import type pg from "pg";
import { DEFAULT_POOL_SIZE } from "@/lib/db/connect";
import { StatementNames } from "@/lib/db/statements";
import { insertLeadSql } from "@/lib/db/store/leads";
import { existingReferrer } from "@/lib/leads/create-lead";
import { newCustomerId } from "@/lib/leads/ids";
import { createLeadBody, type CreateLeadInput } from "@/lib/leads/schemas";
import { newLeadOf } from "@/lib/leads/stored-lead";
import { leadBody } from "./load";

/**
 * The service's creation statement for an existing referrer and no agent, run directly through pg with the same
 * SQL, values and statement name, for the bare server, the database-limit run and the floor's creation route.
 */
// Named as the service names it (lib/db/statements.ts), so PostgreSQL plans it once per connection.
const names = new StatementNames();

/** The benchmark's lead as the service validates it (mobile number canonical, source name cleaned). */
export const benchLead: CreateLeadInput = createLeadBody.parse(leadBody);

function creationStatement(input: CreateLeadInput, leadCustomerId: string) {
  const statement = insertLeadSql(newLeadOf(input, null, leadCustomerId), existingReferrer(input.referrer));
  return { name: names.name(statement.text), text: statement.text, values: statement.values };
}

export async function createLeadWithPg(pool: pg.Pool, input: CreateLeadInput): Promise<{ referralId: number }> {
  const { rows } = await pool.query<{ id: number }>(creationStatement(input, newCustomerId("person")));
  if (!rows.length) throw new Error("the benchmark's referrer has no account");
  return { referralId: rows[0].id };
}

/**
 * What the floor's creation route runs, as JSON for BENCH_CREATION_STATEMENT: the statement, the positions of its
 * lead customer id (new per request) and the service's pool size.
 */
export function creationStatementForFloor(): string {
  const leadCustomerId = newCustomerId("person");
  const statement = creationStatement(benchLead, leadCustomerId);
  const leadCustomerIdAt = statement.values.flatMap((value, i) => (value === leadCustomerId ? [i] : []));
  return JSON.stringify({ ...statement, leadCustomerIdAt, poolSize: DEFAULT_POOL_SIZE });
}
