import type pg from "pg";
import { newCustomerId } from "@/lib/leads/ids";
import type { CreateLeadInput } from "@/lib/leads/schemas";
import { sourceKey } from "@/lib/leads/source-name";

/**
 * The service's creation transaction for an existing source referrer and no agent,
 * written directly against pg: look the source up by name, then the lead customer,
 * the workflow record and its audit entry in one transaction. The bare server and
 * the database-limit run both use it.
 */
export async function createLeadWithPg(pool: pg.Pool, input: CreateLeadInput): Promise<{ referralId: number }> {
  const client = await pool.connect();
  try {
    const source = await client.query<{ customer_id: string }>(
      "SELECT customer_id FROM lead_source_names WHERE key = $1",
      [sourceKey(input.referrer as string)],
    );
    const leadCustomerId = newCustomerId("person");
    await client.query("BEGIN");
    await client.query(
      "INSERT INTO customers (id, kind, name, mobile_number, state, city, address) VALUES ($1, 'person', $2, $3, '', '', '')",
      [leadCustomerId, input.leadName, input.leadMobileNumber],
    );
    const referral = await client.query<{ id: number }>(
      `INSERT INTO referrals (referrer_customer_id, lead_customer_id, lead_name, mobile_number, status, state, city,
                              address, relationship, project_type, remark)
       VALUES ($1, $2, $3, $4, 'Pending', '', '', '', 'Other', 'OTHERS', '') RETURNING id`,
      [source.rows[0].customer_id, leadCustomerId, input.leadName, input.leadMobileNumber],
    );
    await client.query("INSERT INTO audit_entries (referral_id, action, actor) VALUES ($1, 'lead.created', 'bench')", [
      referral.rows[0].id,
    ]);
    await client.query("COMMIT");
    return { referralId: referral.rows[0].id };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
