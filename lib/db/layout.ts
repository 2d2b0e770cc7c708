import { Prisma } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import { HOST_NAMES, type HostField, type HostModel } from "@/lib/db/host-names";

// The SQL that depends on the host's names and layout, in one place: every host table and column a statement names
// comes from lib/db/host-names.json through HostTable, and the sales filter, access levels and assignment column from
// the layout below.

/** An identifier quoted for PostgreSQL: the one way a host's name enters SQL. */
export function quoted(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/**
 * One host model's table and columns as SQL fragments, made on first use and kept for the process, so a request
 * composes statements from them and never joins a name itself.
 */
export class HostTable<M extends HostModel> {
  /** The quoted table. */
  readonly table: Prisma.Sql;
  private readonly fragments = new Map<string, Prisma.Sql>();

  constructor(
    readonly names: {
      table: string;
      columns: Record<HostField<M>, string | null>;
      enums: Partial<Record<HostField<M>, string>>;
      withoutTimeZone: readonly HostField<M>[];
      nullable: readonly HostField<M>[];
    },
  ) {
    this.table = Prisma.raw(quoted(names.table));
  }

  /** Whether the host has a column for this field (only the legacy layout's may be missing). */
  has(field: HostField<M>): boolean {
    return this.names.columns[field] !== null;
  }

  private cached(key: string, make: () => Prisma.Sql): Prisma.Sql {
    let fragment = this.fragments.get(key);
    if (!fragment) this.fragments.set(key, (fragment = make()));
    return fragment;
  }

  /** The quoted column of a field, qualified by `alias` when given. */
  column(field: HostField<M>, alias?: string): Prisma.Sql {
    return this.cached(`column ${alias ?? ""}.${field}`, () => {
      const column = this.names.columns[field];
      if (column === null) throw new Error(`The host has no column for ${field}`);
      return Prisma.raw(alias === undefined ? quoted(column) : `${alias}.${quoted(column)}`);
    });
  }

  /**
   * A field's value as the module reads it: an enum label as text, and NULL in a column the module's schema requires
   * as an empty string (docs/host-guide.md, "Your names"). A timestamp without time zone is read as it is: Prisma's
   * pg adapter takes it as UTC, as now() below writes it, whatever the session's zone.
   */
  read(field: HostField<M>, alias?: string): Prisma.Sql {
    return this.cached(`read ${alias ?? ""}.${field}`, () => {
      const column = this.column(field, alias).text;
      if (this.names.enums[field] !== undefined) return Prisma.raw(`${column}::text`);
      if (this.names.nullable.includes(field)) return Prisma.raw(`coalesce(${column}, '')`);
      return Prisma.raw(column);
    });
  }

  /** `read AS "field"` for each field, so rows come back keyed by the module's field names. */
  select(alias: string, fields: readonly HostField<M>[]): Prisma.Sql {
    return Prisma.join(
      fields.map((field) =>
        this.cached(`select ${alias}.${field}`, () =>
          Prisma.raw(`${this.read(field, alias).text} AS ${quoted(field)}`),
        ),
      ),
    );
  }

  /** The cast a value written into the field's column takes: to its enum type, or none. */
  private cast(field: HostField<M>): Prisma.Sql {
    return this.cached(`cast ${field}`, () => {
      const type = this.names.enums[field];
      return Prisma.raw(type === undefined ? "" : `::${quoted(type)}`);
    });
  }

  /** A value as written into the field's column: cast to the column's enum type where it has one. */
  write(field: HostField<M>, value: unknown): Prisma.Sql {
    return Prisma.sql`${value}${this.cast(field)}`;
  }

  /** The current time as the field's column stores it: UTC where the column is without time zone. */
  now(field: HostField<M>): Prisma.Sql {
    return this.cached(`now ${field}`, () =>
      Prisma.raw(this.names.withoutTimeZone.includes(field) ? "(now() AT TIME ZONE 'UTC')" : "now()"),
    );
  }
}

/** The host's tables, by the module's model; `auditEntries` is null where the host keeps no audit entries. */
export const HOST = {
  customers: new HostTable<"Customer">(HOST_NAMES.Customer),
  users: new HostTable<"User">(HOST_NAMES.User),
  referrals: new HostTable<"Referral">(HOST_NAMES.Referral),
  auditEntries: HOST_NAMES.AuditEntry && new HostTable<"AuditEntry">(HOST_NAMES.AuditEntry),
};

/**
 * Which of the host's optional columns this database has: the legacy layout lacks users.access_levels or
 * referrals.assigned_agent_id. A column the names leave out is missing without asking; one they name is checked
 * against the database. Read once per client; a layout change needs a restart.
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

const tableColumn = (table: { names: { table: string; columns: Record<string, string | null> } }, field: string) => {
  const column = table.names.columns[field];
  return column === null || column === undefined ? null : `${table.names.table}.${column}`;
};

/** The optional host columns, as `table.column` (null where the names leave them out), behind the layout. */
export const LAYOUT_COLUMNS: Record<keyof Layout, string | null> = {
  accessLevels: tableColumn(HOST.users, "accessLevels"),
  assignment: tableColumn(HOST.referrals, "assignedAgentId"),
};

/** The layout of a database whose `table.column` names (those of LAYOUT_COLUMNS at least) are given. */
export function layoutFromColumns(columns: ReadonlySet<string>): Layout {
  const present = (column: string | null) => column !== null && columns.has(column);
  return { accessLevels: present(LAYOUT_COLUMNS.accessLevels), assignment: present(LAYOUT_COLUMNS.assignment) };
}

async function readLayout(db: Db): Promise<Layout> {
  const rows = await db.$queryRaw<{ column: string }[]>(Prisma.sql`
    SELECT table_name || '.' || column_name AS column
    FROM information_schema.columns
    WHERE table_schema = current_schema()
      AND table_name || '.' || column_name = ANY(${Object.values(LAYOUT_COLUMNS).filter((c) => c !== null)})`);
  return layoutFromColumns(new Set(rows.map((r) => r.column)));
}

const { users, referrals } = HOST;

/** The legacy layout's stand-in for access levels. */
const NO_ACCESS_LEVELS = Prisma.sql`'{}'::text[]`;

/**
 * Users who can be assigned leads, as rows of (id, name, "platformId", "accessLevels"): a platform id, and
 * "sales" among their access levels. On the legacy layout (no access levels column) the sales filter cannot
 * be applied: every user with a platform id qualifies, with no access levels.
 */
export function eligibleAgentsSql(layout: Layout, where: Prisma.Sql): Prisma.Sql {
  const accessLevels = layout.accessLevels
    ? Prisma.sql`coalesce(${users.column("accessLevels")}, '{}')`
    : NO_ACCESS_LEVELS;
  const sales = layout.accessLevels ? Prisma.sql`AND 'sales' = ANY(${users.column("accessLevels")})` : Prisma.empty;
  return Prisma.sql`
    SELECT ${users.read("id")} AS "id", ${users.read("name")} AS "name", ${users.read("platformId")} AS "platformId",
      ${accessLevels} AS "accessLevels"
    FROM ${users.table}
    WHERE ${users.column("platformId")} IS NOT NULL ${sales} AND ${where}`;
}

/** The platform id of the agent a referral `r` is assigned to; NULL where the host has no assignment column. */
export function assignedAgentPlatformIdSql(layout: Layout): Prisma.Sql {
  return layout.assignment
    ? Prisma.sql`(SELECT ${users.column("platformId", "u")} FROM ${users.table} u
        WHERE ${users.column("id", "u")} = ${referrals.column("assignedAgentId", "r")})`
    : Prisma.sql`NULL::text`;
}

/**
 * The assignment column and its value for a new referral: named only with an agent (null for none), so a host without
 * assignment storage (which never gets this far with one, see createLead) never sees the column.
 */
export function assignmentSql(agentUserId: unknown): { column: Prisma.Sql; value: Prisma.Sql } {
  return agentUserId === null
    ? { column: Prisma.empty, value: Prisma.empty }
    : { column: Prisma.sql`, ${referrals.column("assignedAgentId")}`, value: Prisma.sql`, ${agentUserId}` };
}
