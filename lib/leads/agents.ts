import { ApiError } from "@/lib/api/errors";
import type { Db } from "@/lib/db/prisma";
import { eligibleAgentsSql, layoutOf } from "@/lib/db/layout";
import { Prisma } from "@/lib/generated/prisma/client";
import { MAX_INT4, type Agent, type CreateLeadInput } from "@/lib/leads/schemas";

const agentFields = { id: true, name: true, platformId: true, accessLevels: true } satisfies Prisma.UserSelect;
/** A row of eligibleAgentsSql: the generated User type; the query keeps only users with a platform id. */
type AgentRow = Prisma.UserGetPayload<{ select: typeof agentFields }> & { platformId: string };

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
  const layout = await layoutOf(db);
  const rows = await db.$queryRaw<AgentRow[]>`${eligibleAgentsSql(layout, Prisma.sql`TRUE`)} ORDER BY name, id`;
  return rows.map(toAgent);
}

/**
 * Spec rule 6: a platform id (preferred) or a numeric user id, as an integer or a
 * digit string, naming an eligible agent; otherwise 422 INVALID_AGENT.
 */
export async function resolveAgent(db: Db, assignedAgentId: NonNullable<CreateLeadInput["assignedAgentId"]>): Promise<Agent> {
  const text = String(assignedAgentId);
  const numeric = /^[0-9]+$/.test(text) && Number(text) <= MAX_INT4 ? Number(text) : null;
  const byPlatformId = typeof assignedAgentId === "string" ? Prisma.sql`platform_id = ${text}` : Prisma.sql`FALSE`;
  const byNumericId = numeric === null ? Prisma.sql`FALSE` : Prisma.sql`id = ${numeric}`;
  const layout = await layoutOf(db);
  // A platform id match wins over a numeric id match. The order is on the column,
  // not on byPlatformId: for an integer that is FALSE, and PostgreSQL refuses a
  // constant ORDER BY ("non-integer constant in ORDER BY").
  const rows = await db.$queryRaw<AgentRow[]>`
    ${eligibleAgentsSql(layout, Prisma.sql`(${byPlatformId} OR ${byNumericId})`)}
    ORDER BY (platform_id = ${text}) DESC
    LIMIT 1`;
  if (!rows[0]) throw new ApiError("INVALID_AGENT");
  return toAgent(rows[0]);
}
