import type { Db } from "@/lib/db/prisma";
import { findAgentRow, listAgentRows, type AgentRow } from "@/lib/db/store/agents";
import { LeadRefusal } from "@/lib/leads/refusal";
import { MAX_INT4, type Agent, type CreateLeadInput } from "@/lib/leads/schemas";

function toAgent(row: AgentRow): Agent {
  return {
    id: row.platformId,
    name: row.name,
    platformId: row.platformId,
    numericId: row.id,
    accessLevels: row.accessLevels,
  };
}

export async function listAgents(db: Db): Promise<Agent[]> {
  return (await listAgentRows(db)).map(toAgent);
}

/**
 * Spec rule 6: a platform id (preferred) or a numeric user id, as an integer or a
 * digit string, naming an eligible agent; otherwise 422 INVALID_AGENT.
 */
export async function resolveAgent(
  db: Db,
  assignedAgentId: NonNullable<CreateLeadInput["assignedAgentId"]>,
): Promise<Agent> {
  const text = String(assignedAgentId);
  const numeric = /^[0-9]+$/.test(text) && Number(text) <= MAX_INT4 ? Number(text) : null;
  const row = await findAgentRow(db, typeof assignedAgentId === "string" ? text : null, numeric);
  if (!row) throw new LeadRefusal("INVALID_AGENT");
  return toAgent(row);
}
