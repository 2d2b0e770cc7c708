import type { Db } from "@/lib/db/prisma";
import { eligibleAgentsSql, HOST, layoutOf } from "@/lib/db/layout";
import { Prisma } from "@/lib/generated/prisma/client";
import type { HostRows } from "@/lib/db/host-names";

/** A row of eligibleAgentsSql: the module's User row; the query keeps only users with a platform id. */
export type AgentRow = Pick<HostRows["User"], "id" | "name" | "accessLevels"> & { platformId: string };

/** Every user leads can be assigned to, by name then id. */
export async function listAgentRows(db: Db): Promise<AgentRow[]> {
  const layout = await layoutOf(db);
  return db.$queryRaw<AgentRow[]>(Prisma.sql`${eligibleAgentsSql(layout, Prisma.sql`TRUE`)} ORDER BY "name", "id"`);
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
  const { users } = HOST;
  const byPlatformId =
    platformId === null ? Prisma.sql`FALSE` : Prisma.sql`${users.column("platformId")} = ${platformId}`;
  const byNumericId = numericId === null ? Prisma.sql`FALSE` : Prisma.sql`${users.column("id")} = ${numericId}`;
  const layout = await layoutOf(db);
  // The order is on the column, not on byPlatformId: for an integer that is FALSE, and PostgreSQL refuses a
  // constant ORDER BY ("non-integer constant in ORDER BY").
  const [row] = await db.$queryRaw<AgentRow[]>(Prisma.sql`
    ${eligibleAgentsSql(layout, Prisma.sql`(${byPlatformId} OR ${byNumericId})`)}
    ORDER BY (${users.column("platformId")} = ${platformId ?? ""}) DESC
    LIMIT 1`);
  return row ?? null;
}

/** Whether the host's referrals can store an assignment (lib/db/layout.ts). */
export async function assignmentStored(db: Db): Promise<boolean> {
  return (await layoutOf(db)).assignment;
}
