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
 * The service's creation statement for an existing referrer and no agent, run
 * directly through pg: the same SQL, values and prepared-statement name the service sends.
 * The bare server and the database-limit run both use it, and the floor's creation route
 * (bench/floor/app/api/create/route.js) gets it from creationStatementForFloor.
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
 * What the floor's creation route runs, as JSON for its environment (BENCH_CREATION_STATEMENT):
 * the statement for the benchmark's lead, the value positions of its lead customer id (the route
 * puts a new one there per request) and the service's pool size.
 */
export function creationStatementForFloor(): string {
  const leadCustomerId = newCustomerId("person");
  const statement = creationStatement(benchLead, leadCustomerId);
  const leadCustomerIdAt = statement.values.flatMap((value, i) => (value === leadCustomerId ? [i] : []));
  return JSON.stringify({ ...statement, leadCustomerIdAt, poolSize: DEFAULT_POOL_SIZE });
}
