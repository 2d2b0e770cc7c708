import type { Db } from "@/lib/db/prisma";
import { eligibleAgentsSql, HOST, layoutOf, type Layout } from "@/lib/db/layout";
import { builtPerShape, queryBuilt, Slot } from "@/lib/db/statement-template";
import { Prisma } from "@/lib/generated/prisma/client";
import type { HostRows } from "@/lib/db/host-names";

/** A row of eligibleAgentsSql: the module's User row; the query keeps only users with a platform id. */
export type AgentRow = Pick<HostRows["User"], "id" | "name" | "accessLevels"> & { platformId: string };

/** What an agent look-up reads its values from. */
interface AgentLookup {
  platformId: string | null;
  numericId: number | null;
}

const layoutKey = (layout: Layout) => `${layout.accessLevels} ${layout.assignment}`;
const { users } = HOST;

/** Every agent, by name then id: one statement per layout (lib/db/layout.ts reads it once per client). */
const listSql = builtPerShape<Layout, void>(
  layoutKey,
  (layout) => Prisma.sql`${eligibleAgentsSql(layout, Prisma.sql`TRUE`)} ORDER BY "name", "id"`,
);

const lookedUpPlatformId = new Slot<AgentLookup>((lookup) => lookup.platformId);
const lookedUpNumericId = new Slot<AgentLookup>((lookup) => lookup.numericId);
const LOOKED_UP = Prisma.sql`(${users.column("platformId")} = ${lookedUpPlatformId}
  OR ${users.column("id")} = ${lookedUpNumericId})`;

/**
 * One agent by platform id or numeric id, a platform id match first: one statement per layout. A null look-up value
 * matches nothing. The order is on the column, not on the match: PostgreSQL refuses a constant ORDER BY
 * ("non-integer constant in ORDER BY").
 */
const findSql = builtPerShape<Layout, AgentLookup>(
  layoutKey,
  (layout) => Prisma.sql`
    ${eligibleAgentsSql(layout, LOOKED_UP)}
    ORDER BY (${users.column("platformId")} = ${lookedUpPlatformId}) IS TRUE DESC
    LIMIT 1`,
);

/** Every user leads can be assigned to, by name then id. */
export async function listAgentRows(db: Db): Promise<AgentRow[]> {
  return queryBuilt<AgentRow>(db, listSql(await layoutOf(db))());
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
  const [row] = await queryBuilt<AgentRow>(db, findSql(await layoutOf(db))({ platformId, numericId }));
  return row ?? null;
}

/** Whether the host's referrals can store an assignment (lib/db/layout.ts). */
export async function assignmentStored(db: Db): Promise<boolean> {
  return (await layoutOf(db)).assignment;
}
