// The floor with a lead's database round trip: the body read, the service's creation statement through pg, a JSON
// answer. No key check, validation, request id or log line: what the service spends beyond this is its own work.
import { randomUUID } from "node:crypto";
import pg from "pg";

const statement = JSON.parse(process.env.BENCH_CREATION_STATEMENT ?? "null");
// Connections stay open between the benchmark's runs, as the service's (30 s idle timeout) do.
const pool =
  statement &&
  new pg.Pool({ connectionString: process.env.DATABASE_URL, max: statement.poolSize, idleTimeoutMillis: 0 });

/** @param {Request} request */
export async function POST(request) {
  await request.text();
  const values = [...statement.values];
  const leadCustomerId = `cus_${randomUUID().replaceAll("-", "")}`;
  for (const i of statement.leadCustomerIdAt) values[i] = leadCustomerId;
  const { rows } = await pool.query({ name: statement.name, text: statement.text, values });
  return Response.json({ lead: rows[0] }, { status: 201, headers: { "Cache-Control": "no-store" } });
}
