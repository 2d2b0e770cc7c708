import { ApiError } from "@/lib/api/errors";
import type { Db } from "@/lib/db/client";
import { layoutOf, type Layout } from "@/lib/db/layout";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Agent, CreateLeadInput } from "./schemas";

interface AgentRow {
  id: number;
  name: string;
  platform_id: string;
  access_levels: string[];
}

const MAX_USER_ID = 2147483647;

/**
 * Users who can be assigned leads: a platform id, and "sales" among their access
 * levels. On the legacy layout (no access_levels column) the sales filter cannot
 * be applied: every user with a platform id qualifies, with no access levels.
 */
function eligibleAgents(layout: Layout, where: Prisma.Sql): Prisma.Sql {
  const accessLevels = layout.accessLevels ? Prisma.sql`coalesce(access_levels, '{}')` : Prisma.sql`'{}'::text[]`;
  const sales = layout.accessLevels ? Prisma.sql`AND 'sales' = ANY(access_levels)` : Prisma.empty;
  return Prisma.sql`
    SELECT id, name, platform_id, ${accessLevels} AS access_levels
    FROM users
    WHERE platform_id IS NOT NULL ${sales} AND ${where}`;
}

function toAgent(row: AgentRow): Agent {
  return {
    id: row.platform_id,
    name: row.name,
    platformId: row.platform_id,
    numericId: row.id,
    accessLevels: row.access_levels,
  };
}

export async function listAgents(db: Db): Promise<Agent[]> {
  const layout = await layoutOf(db);
  const rows = await db.$queryRaw<AgentRow[]>`${eligibleAgents(layout, Prisma.sql`TRUE`)} ORDER BY name, id`;
  return rows.map(toAgent);
}

/**
 * Spec rule 6: a platform id (preferred) or a numeric user id, as an integer or a
 * digit string, naming an eligible agent; otherwise 422 INVALID_AGENT.
 */
export async function resolveAgent(db: Db, assignedAgentId: NonNullable<CreateLeadInput["assignedAgentId"]>): Promise<Agent> {
  const text = String(assignedAgentId);
  const numeric = /^[0-9]+$/.test(text) && Number(text) <= MAX_USER_ID ? Number(text) : null;
  const byPlatformId = typeof assignedAgentId === "string" ? Prisma.sql`platform_id = ${text}` : Prisma.sql`FALSE`;
  const byNumericId = numeric === null ? Prisma.sql`FALSE` : Prisma.sql`id = ${numeric}`;
  const layout = await layoutOf(db);
  // A platform id match wins over a numeric id match. The order is on the column,
  // not on byPlatformId: for an integer that is FALSE, and PostgreSQL refuses a
  // constant ORDER BY ("non-integer constant in ORDER BY").
  const rows = await db.$queryRaw<AgentRow[]>`
    ${eligibleAgents(layout, Prisma.sql`(${byPlatformId} OR ${byNumericId})`)}
    ORDER BY (platform_id = ${text}) DESC
    LIMIT 1`;
  if (!rows[0]) throw new ApiError("INVALID_AGENT");
  return toAgent(rows[0]);
}
