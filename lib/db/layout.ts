import { Prisma } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";

/**
 * Which of the host's optional columns this database has: the legacy layout lacks users.access_levels or
 * referrals.assigned_agent_id. Read once per client; a layout change needs a restart.
 */
export interface Layout {
  accessLevels: boolean;
  assignment: boolean;
}

const layouts = new WeakMap<Db, Promise<Layout>>();

export function layoutOf(db: Db): Promise<Layout> {
  let layout = layouts.get(db);
  if (!layout) {
    layout = readLayout(db);
    layout.catch(() => layouts.delete(db));
    layouts.set(db, layout);
  }
  return layout;
}

/** The optional host columns, as `table.column`, behind each part of the layout. */
export const LAYOUT_COLUMNS: Record<keyof Layout, string> = {
  accessLevels: "users.access_levels",
  assignment: "referrals.assigned_agent_id",
};

/** The layout of a database whose `table.column` names (those of LAYOUT_COLUMNS at least) are given. */
export function layoutFromColumns(columns: ReadonlySet<string>): Layout {
  return { accessLevels: columns.has(LAYOUT_COLUMNS.accessLevels), assignment: columns.has(LAYOUT_COLUMNS.assignment) };
}

async function readLayout(db: Db): Promise<Layout> {
  const rows = await db.$queryRaw<{ column: string }[]>(Prisma.sql`
    SELECT table_name || '.' || column_name AS column
    FROM information_schema.columns
    WHERE table_schema = current_schema()
      AND table_name || '.' || column_name = ANY(${Object.values(LAYOUT_COLUMNS)})`);
  return layoutFromColumns(new Set(rows.map((r) => r.column)));
}

// The SQL that depends on the host's layout, in one place: the sales filter and access levels of users,
// and the assignment column of referrals.

/**
 * Users who can be assigned leads, as rows of (id, name, "platformId", "accessLevels"): a platform id, and
 * "sales" among their access levels. On the legacy layout (no access_levels column) the sales filter cannot
 * be applied: every user with a platform id qualifies, with no access levels.
 */
export function eligibleAgentsSql(layout: Layout, where: Prisma.Sql): Prisma.Sql {
  const accessLevels = layout.accessLevels ? Prisma.sql`coalesce(access_levels, '{}')` : Prisma.sql`'{}'::text[]`;
  const sales = layout.accessLevels ? Prisma.sql`AND 'sales' = ANY(access_levels)` : Prisma.empty;
  return Prisma.sql`
    SELECT id, name, platform_id AS "platformId", ${accessLevels} AS "accessLevels"
    FROM users
    WHERE platform_id IS NOT NULL ${sales} AND ${where}`;
}

/** The platform id of the agent a referral `r` is assigned to; NULL where the host has no assignment column. */
export function assignedAgentPlatformIdSql(layout: Layout): Prisma.Sql {
  return layout.assignment
    ? Prisma.sql`(SELECT u.platform_id FROM users u WHERE u.id = r.assigned_agent_id)`
    : Prisma.sql`NULL::text`;
}

/**
 * The assignment column and its value for a new referral: named only with an agent, so a host without
 * assignment storage (which never gets this far with one, see createLead) never sees the column.
 */
export function assignmentSql(agentUserId: number | null): { column: Prisma.Sql; value: Prisma.Sql } {
  return agentUserId === null
    ? { column: Prisma.empty, value: Prisma.empty }
    : { column: Prisma.sql`, assigned_agent_id`, value: Prisma.sql`, ${agentUserId}` };
}
