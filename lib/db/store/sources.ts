import type { Db } from "@/lib/db/prisma";
import { HOST } from "@/lib/db/layout";
import type { HostRows } from "@/lib/db/host-names";
import { Prisma } from "@/lib/generated/prisma/client";
import { builtOnce, queryBuilt, Slot } from "@/lib/db/statement-template";

/** A source account as stored: the module's Customer row. */
export type SourceRow = Pick<HostRows["Customer"], "id" | "name" | "sourceType">;

/** A new source account: its id, cleaned name, type, and the key of its name (lib/leads/source-name.ts). */
export interface NewSourceRow {
  id: string;
  name: string;
  sourceType: "ads" | "other";
  key: string;
}

/** A referrer string as looked up: the string and the key of it as a name. */
export interface SourceLookup {
  nameOrId: string;
  key: string;
}

const { customers } = HOST;
const idColumn = customers.column("id");
const kindColumn = customers.column("kind");
/** An account as the statements return it: (id, name, kind, "sourceType") of customers `c`. */
export const ACCOUNT_FIELDS = customers.select("c", ["id", "name", "kind", "sourceType"]);

/**
 * SQL for the source account a referrer string names, at most one row of (id, name, kind, "sourceType"): an id,
 * then a registered name, then a host-added source's name key, each one index look-up (docs/decisions.md, "Looking
 * up a referrer").
 */
export function namedSourceSql({ nameOrId, key }: Record<keyof SourceLookup, unknown>): Prisma.Sql {
  return Prisma.sql`
    SELECT ${ACCOUNT_FIELDS} FROM ${customers.table} c
    WHERE ${customers.column("id", "c")} = COALESCE(
      (SELECT ${idColumn} FROM ${customers.table} WHERE ${idColumn} = ${nameOrId} AND ${kindColumn} = 'source'),
      (SELECT customer_id FROM lead_source_names WHERE key = ${key}),
      (SELECT ${idColumn} FROM ${customers.table}
       WHERE ${kindColumn} = 'source' AND lead_intake_source_key(${customers.column("name")}) = ${key}
       ORDER BY ${customers.column("createdAt")}, ${idColumn} LIMIT 1)
    )`;
}

const lookupSql = builtOnce<SourceLookup>(
  namedSourceSql({ nameOrId: new Slot<SourceLookup>((l) => l.nameOrId), key: new Slot<SourceLookup>((l) => l.key) }),
);

export async function findSourceRow(db: Db, lookup: SourceLookup): Promise<SourceRow | null> {
  const [row] = await queryBuilt<SourceRow>(db, lookupSql(lookup));
  return row ?? null;
}

const sourceIdSql = builtOnce<string>(
  Prisma.sql`SELECT 1 FROM ${customers.table}
    WHERE ${idColumn} = ${new Slot<string>((id) => id)} AND ${kindColumn} = 'source'`,
);

/** Whether a source account has this exact id (one primary-key look-up). */
export async function sourceIdExists(db: Db, id: string): Promise<boolean> {
  return (await queryBuilt(db, sourceIdSql(id))).length > 0;
}

/**
 * CTEs (new_source, new_source_name) inserting a source account and its name key in one statement, so both are
 * saved or neither. The key's primary key makes a concurrent twin fail with a unique violation. Creating a lead
 * with a new source adds its own CTEs after these.
 */
export function insertSourceCtes({ id, name, sourceType, key }: Record<keyof NewSourceRow, unknown>): Prisma.Sql {
  return Prisma.sql`
    new_source AS (
      INSERT INTO ${customers.table} (${NEW_SOURCE_COLUMNS})
      VALUES (${id}, 'source', ${name}, ${sourceType}, '', '', '', ${customers.now("createdAt")})
    ),
    new_source_name AS (
      INSERT INTO lead_source_names (key, customer_id) VALUES (${key}, ${id})
    )`;
}

const NEW_SOURCE_COLUMNS = Prisma.join(
  (["id", "kind", "name", "sourceType", "state", "city", "address", "createdAt"] as const).map((field) =>
    customers.column(field),
  ),
);

const sourceField = (field: keyof NewSourceRow) => new Slot<NewSourceRow>((source) => source[field]);
const NEW_SOURCE_SLOTS = {
  id: sourceField("id"),
  name: sourceField("name"),
  sourceType: sourceField("sourceType"),
  key: sourceField("key"),
};
const insertSourceSql = builtOnce<NewSourceRow>(Prisma.sql`WITH ${insertSourceCtes(NEW_SOURCE_SLOTS)} SELECT 1`);

/** Inserts a source account and its name key; a taken key is a unique violation (lib/db/failures.ts). */
export async function insertSource(db: Db, source: NewSourceRow): Promise<void> {
  await queryBuilt(db, insertSourceSql(source));
}

/**
 * The version of the list of source accounts: how many changes it has had, kept by triggers on customers in
 * per-connection slots (prisma/migrations/*_source_list_version). Different lists never share a version, and
 * reading it costs at most 16 rows whatever the number of sources, unlike the list itself (docs/decisions.md).
 */
export const sourceListVersionSql = Prisma.sql`SELECT coalesce(sum(changes), 0)::text AS version FROM lead_source_list_versions`;

export async function sourceListVersion(db: Db): Promise<string> {
  const [row] = await db.$queryRaw<{ version: string }[]>(sourceListVersionSql);
  return row!.version;
}

/**
 * Every source account by name then id, and the version of this list, from one snapshot: one statement, not a
 * transaction, so that a plan the host's DDL made stale is retried at once (lib/db/statements.ts). The version comes
 * with every row, and alone (a row of NULLs) when there is no source.
 */
const SOURCE_FIELDS = customers.select("c", ["id", "name", "sourceType"]);

const SOURCE_LIST = Prisma.sql`
  SELECT v.version, s.id, s.name, s."sourceType"
  FROM (${sourceListVersionSql}) v
  LEFT JOIN LATERAL (SELECT ${SOURCE_FIELDS} FROM ${customers.table} c WHERE ${kindColumn} = 'source') s ON true
  ORDER BY s.name, s.id`;

export async function listSourceRows(db: Db): Promise<{ version: string; rows: SourceRow[] }> {
  const found =
    await db.$queryRaw<({ version: string } & { [F in keyof SourceRow]: SourceRow[F] | null })[]>(SOURCE_LIST);
  const rows = found.flatMap(({ id, name, sourceType }) =>
    id === null || name === null ? [] : [{ id, name, sourceType }],
  );
  return { version: found[0]!.version, rows };
}
