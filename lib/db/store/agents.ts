import type { Db } from "@/lib/db/prisma";
import { eligibleAgentsSql, HOST, layoutOf, type Layout } from "@/lib/db/layout";
import { builtOnce, queryBuilt, Slot, type Statement } from "@/lib/db/statement-template";
import { Prisma } from "@/lib/generated/prisma/client";
import type { HostRows } from "@/lib/db/host-names";

/** A row of eligibleAgentsSql: the module's User row; the query keeps only users with a platform id. */
export type AgentRow = Pick<HostRows["User"], "id" | "name" | "accessLevels"> & { platformId: string };

/** What an agent look-up reads its values from. */
interface AgentLookup {
  platformId: string | null;
  numericId: number | null;
}

/** The agent statements of each layout (lib/db/layout.ts reads it once per client), built on first use. */
const byLayout = new Map<string, { list: Statement; find: (lookup: AgentLookup) => Statement }>();

function agentSql(layout: Layout) {
  const key = `${layout.accessLevels} ${layout.assignment}`;
  let built = byLayout.get(key);
  if (!built) {
    const { users } = HOST;
    const platformId = new Slot<AgentLookup>((lookup) => lookup.platformId);
    const numericId = new Slot<AgentLookup>((lookup) => lookup.numericId);
    // A null look-up value matches nothing. The order is on the column, not on the match: PostgreSQL refuses a
    // constant ORDER BY ("non-integer constant in ORDER BY").
    const matches = Prisma.sql`(${users.column("platformId")} = ${platformId}
      OR ${users.column("id")} = ${numericId})`;
    built = {
      list: builtOnce<void>(Prisma.sql`${eligibleAgentsSql(layout, Prisma.sql`TRUE`)} ORDER BY "name", "id"`)(),
      find: builtOnce<AgentLookup>(Prisma.sql`
        ${eligibleAgentsSql(layout, matches)}
        ORDER BY (${users.column("platformId")} = ${platformId}) IS TRUE DESC
        LIMIT 1`),
    };
    byLayout.set(key, built);
  }
  return built;
}

/** Every user leads can be assigned to, by name then id. */
export async function listAgentRows(db: Db): Promise<AgentRow[]> {
  return queryBuilt<AgentRow>(db, agentSql(await layoutOf(db)).list);
}

/**
 * The eligible user with this platform id, else the one with this numeric id (null when the value cannot be one):
 * a platform id match wins.
 */
export async function findAgentRow(
  db: Db,
  platformId: string | null,
  numericId: number | null,
): Promise<AgentRow | null> {
  const [row] = await queryBuilt<AgentRow>(db, agentSql(await layoutOf(db)).find({ platformId, numericId }));
  return row ?? null;
}

/** Whether the host's referrals can store an assignment (lib/db/layout.ts). */
export async function assignmentStored(db: Db): Promise<boolean> {
  return (await layoutOf(db)).assignment;
}
