import type { Db } from "./client";

/**
 * Which of the host's optional columns this database has. Some host databases
 * are on a legacy layout: users without access_levels (no sales filter can be
 * applied), or referrals without assigned_agent_id (no assignment storage).
 * Read once per client; a layout change needs a restart.
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

async function readLayout(db: Db): Promise<Layout> {
  const rows = await db.$queryRaw<{ column: string }[]>`
    SELECT table_name || '.' || column_name AS column
    FROM information_schema.columns
    WHERE table_schema = current_schema()
      AND (table_name, column_name) IN (('users', 'access_levels'), ('referrals', 'assigned_agent_id'))`;
  const columns = new Set(rows.map((r) => r.column));
  return {
    accessLevels: columns.has("users.access_levels"),
    assignment: columns.has("referrals.assigned_agent_id"),
  };
}
