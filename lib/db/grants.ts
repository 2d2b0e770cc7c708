import { HOST_NAMES } from "@/lib/db/host-names";
import { quoted } from "@/lib/db/layout";

const { Customer: customers, User: users, Referral: referrals, AuditEntry: auditEntries } = HOST_NAMES;

/** The sequence of a host table's id, as PostgreSQL names a serial column's. */
function sequenceOf(model: { table: string; columns: { id: string | null } }): string {
  return `${model.table}_${model.columns.id}_seq`;
}

/**
 * What the runtime role (the one in DATABASE_URL) needs, per feature, once the migrations are applied: the one table
 * that docs/host-guide.md ("Grants"), `npm run host:check`, the start-up check and readiness read. Applying the
 * migrations needs more (CREATE on the schema, owning the host's tables: the guide says so).
 */
export const RUNTIME_GRANTS = {
  // Every start reads which migrations are applied (and creates the configured sources: creating leads).
  "start-up": { tables: { _prisma_migrations: ["SELECT"] }, sequences: [] },
  "creating leads": {
    tables: {
      [customers.table]: ["SELECT", "INSERT"],
      [referrals.table]: ["SELECT", "INSERT"],
      ...(auditEntries && { [auditEntries.table]: ["INSERT"] }),
      lead_source_names: ["SELECT", "INSERT"],
      lead_source_list_versions: ["SELECT"],
      [users.table]: ["SELECT"],
    },
    sequences: [sequenceOf(referrals), ...(auditEntries ? [sequenceOf(auditEntries)] : [])],
  },
  listing: {
    tables: {
      [customers.table]: ["SELECT"],
      [referrals.table]: ["SELECT"],
      [users.table]: ["SELECT"],
      lead_source_names: ["SELECT"],
      lead_source_list_versions: ["SELECT"],
      lead_referrer_counts: ["SELECT"],
      lead_source_lead_counts: ["SELECT"],
      lead_source_lead_blocks: ["SELECT"],
      lead_source_lead_groups: ["SELECT"],
      lead_per_source_lead_blocks: ["SELECT"],
      lead_per_source_lead_groups: ["SELECT"],
    },
    sequences: [],
  },
  "rate limits": {
    tables: { lead_rate_limit_counts: ["SELECT", "INSERT", "UPDATE"] },
    sequences: [],
  },
} as const satisfies Record<string, { tables: Record<string, readonly string[]>; sequences: readonly string[] }>;

export type Feature = keyof typeof RUNTIME_GRANTS;
export const FEATURES = Object.keys(RUNTIME_GRANTS) as Feature[];

/** One grant a feature needs, as the guide words it: `UPDATE on lead_rate_limit_counts`. */
interface Grant {
  feature: Feature;
  privilege: string;
  object: string;
  sequence: boolean;
}

function grantsOf(features: readonly Feature[]): Grant[] {
  return features.flatMap((feature) => {
    const { tables, sequences }: { tables: Record<string, readonly string[]>; sequences: readonly string[] } =
      RUNTIME_GRANTS[feature];
    return [
      ...Object.entries(tables).flatMap(([object, privileges]) =>
        privileges.map((privilege) => ({ feature, privilege, object, sequence: false })),
      ),
      ...sequences.map((object) => ({ feature, privilege: "USAGE", object, sequence: true })),
    ];
  });
}

/** The GRANT statements that give `role` exactly what the features need (the guide shows them for every feature). */
export function grantStatements(features: readonly Feature[], role: string): string {
  const held = new Map<string, Set<string>>(); // "table x" or "sequence x" -> privileges
  for (const { privilege, object, sequence } of grantsOf(features)) {
    const key = `${sequence ? "SEQUENCE " : ""}${object}`;
    held.set(key, (held.get(key) ?? new Set()).add(privilege));
  }
  const objectsBy = new Map<string, string[]>(); // "SELECT, INSERT ON" or "USAGE ON SEQUENCE" -> objects
  for (const [key, privileges] of held) {
    const sequence = key.startsWith("SEQUENCE ");
    const on = `${[...privileges].join(", ")} ON${sequence ? " SEQUENCE" : ""}`;
    objectsBy.set(on, [...(objectsBy.get(on) ?? []), quoted(sequence ? key.slice("SEQUENCE ".length) : key)]);
  }
  return [
    `GRANT USAGE ON SCHEMA public TO ${role};`,
    ...[...objectsBy].map(([on, objects]) => `GRANT ${on} ${objects.join(", ")} TO ${role};`),
  ].join("\n");
}

/** Sends one statement with values and gives its rows (a pg client's or pool's query, or the Prisma client's). */
export type RowsOf = <Row>(text: string, values: unknown[]) => Promise<Row[]>;

/** A grant the current role lacks: its feature, and `UPDATE on lead_rate_limit_counts`. */
export interface MissingGrant {
  feature: Feature;
  grant: string;
}

/**
 * The grants the features need that the current role lacks; a table not there yet (a pending migration creates it)
 * is not counted as missing.
 */
export async function missingGrants(rowsOf: RowsOf, features: readonly Feature[]): Promise<MissingGrant[]> {
  const grants = grantsOf(features);
  const rows = await rowsOf<{ granted: boolean | null }>(
    `SELECT CASE WHEN to_regclass(t.object) IS NULL THEN NULL
              WHEN t.sequence THEN has_sequence_privilege(t.object, t.privilege)
              ELSE has_table_privilege(t.object, t.privilege) END AS granted
     FROM unnest($1::text[], $2::text[], $3::bool[]) WITH ORDINALITY AS t(object, privilege, sequence, n)
     ORDER BY t.n`,
    [grants.map((g) => quoted(g.object)), grants.map((g) => g.privilege), grants.map((g) => g.sequence)],
  );
  return grants
    .filter((_, i) => rows[i]?.granted === false)
    .map((g) => ({ feature: g.feature, grant: `${g.privilege} on ${g.sequence ? "sequence " : ""}${g.object}` }));
}

/**
 * What applying a pending migration needs that the current role lacks: CREATE on the schema, and owning (being a
 * member of the owner of) each table the migrations alter.
 */
export async function missingMigrationGrants(rowsOf: RowsOf, tables: readonly string[]): Promise<string[]> {
  // An aggregate without GROUP BY: always one row.
  const [row] = await rowsOf<{ create: boolean; notOwned: string[] }>(
    `SELECT has_schema_privilege(current_schema(), 'CREATE') AS "create",
            coalesce(array_agg(c.relname::text ORDER BY c.relname)
                       FILTER (WHERE NOT pg_has_role(c.relowner, 'USAGE')), '{}') AS "notOwned"
     FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = ANY($1::text[])`,
    [tables],
  );
  const { create, notOwned } = row!;
  return [...(create ? [] : ["CREATE on the schema"]), ...notOwned.map((t) => `ownership of ${t}`)];
}
