import pg from "pg";
import { z } from "zod";
import { ApiError } from "@/lib/api/errors";
import defaultSources from "@/lib/leads/default-sources.json";
import type { Db } from "@/lib/db/prisma";
import { Prisma } from "@/lib/generated/prisma/client";
import { newCustomerId } from "@/lib/leads/ids";
import { source, type Source } from "@/lib/leads/schemas";
import { cleanSourceName, sourceKey } from "@/lib/leads/source-name";

const configuredSources = z.array(source.pick({ name: true, type: true }));

/** The configured default sources: LEADS_DEFAULT_SOURCES (a JSON array) or else default-sources.json. */
export function readConfiguredSources(): z.infer<typeof configuredSources> {
  const configured = process.env.LEADS_DEFAULT_SOURCES;
  return configuredSources.parse(configured ? JSON.parse(configured) : defaultSources);
}

/**
 * Creates the account of each configured source that has none yet (decisions.md 7),
 * so that every source has a stable src_ id before its first lead and listing never
 * writes. Safe to run from several processes at once.
 */
export async function ensureConfiguredSources(db: Db): Promise<void> {
  for (const { name, type } of readConfiguredSources()) await ensureSource(db, name, type);
}

/**
 * The source account of this name (case and repeated spaces ignored; see
 * namedSource), created with this type if there is none. Safe to run from several
 * processes at once: the name key lets one create win, the others then find it.
 */
export async function ensureSource(db: Db, name: string, type: Source["type"]): Promise<Source> {
  const existing = await findSource(db, name);
  if (existing) return existing;
  await refuseIdInOtherCase(db, name);
  const created: Source = { id: newCustomerId("source"), name: cleanSourceName(name), type };
  try {
    await db.$executeRaw`WITH ${insertSource(created)} SELECT 1`;
    return created;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return (await findSource(db, name)) as Source;
  }
}

/**
 * CTEs (new_source, new_source_name) inserting a source account and its name key
 * in one statement, so both are saved or neither; `name` is already cleaned. The
 * key's primary key makes a concurrent twin fail with a unique violation. Creating a
 * lead with a new source adds its own CTEs after these.
 */
export function insertSource({ id, name, type }: Source): Prisma.Sql {
  return Prisma.sql`
    new_source AS (
      INSERT INTO customers (id, kind, name, source_type, state, city, address, created_at)
      VALUES (${id}, 'source', ${name}, ${type}, '', '', '', now())
    ),
    new_source_name AS (
      INSERT INTO lead_source_names (key, customer_id) VALUES (${sourceKey(name)}, ${id})
    )`;
}

/**
 * Refuses a name that names no source but is, case ignored, an existing source id (its key equals the id): as a
 * new source its name key would capture, case ignored, what names that id (docs/decisions.md, "A source id in another case": 422, ids are
 * case-sensitive). One primary-key look-up.
 */
export async function refuseIdInOtherCase(db: Db, name: string): Promise<void> {
  const found = await db.customer.findFirst({ where: { id: sourceKey(name), kind: "source" }, select: { id: true } });
  if (found) {
    throw new ApiError("INVALID_REFERRER", "referrer differs from an existing source id only in case; source ids are case-sensitive");
  }
}

/**
 * A unique key was taken: P2002 from model queries; from raw SQL, P2010 carrying the driver's
 * UniqueConstraintViolation; from a statement sent straight through pg (queryPrepared), SQLSTATE 23505.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) return error.code === "23505";
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  const cause = (error.meta?.driverAdapterError as { cause?: { kind?: string } } | undefined)?.cause;
  return error.code === "P2002" || (error.code === "P2010" && cause?.kind === "UniqueConstraintViolation");
}

const sourceSelect = { id: true, name: true, sourceType: true } satisfies Prisma.CustomerSelect;
type SourceRow = Prisma.CustomerGetPayload<{ select: typeof sourceSelect }>;

function toSource(row: SourceRow): Source {
  return { id: row.id, name: row.name, type: row.sourceType === "ads" ? "ads" : "other" };
}

/**
 * The source a referrer string names (see namedSource), case and repeated spaces ignored.
 * PostgreSQL text cannot hold U+0000, so no name or id contains it; asking would fail the query.
 */
export async function findSource(db: Db, nameOrId: string): Promise<Source | null> {
  if (nameOrId.includes("\0")) return null;
  const [row] = await db.$queryRaw<SourceRow[]>(namedSource(nameOrId));
  return row ? toSource(row) : null;
}

/**
 * SQL for the source account a referrer string names, as at most one row of (id, name, kind, "sourceType"),
 * in this order (decisions.md 12): an exact source id, so no name can shadow an id; the name registered in
 * lead_source_names; else a source the host added itself, which has no name key, by the key of its name (the
 * oldest, through customers_source_key_idx). COALESCE stops at the first that finds one. Each arm is one index
 * look-up, whatever the number of sources. One query, and creating a lead uses it inside its insert statement.
 */
export function namedSource(nameOrId: string): Prisma.Sql {
  const key = sourceKey(nameOrId);
  return Prisma.sql`
    SELECT id, name, kind, source_type AS "sourceType" FROM customers
    WHERE id = COALESCE(
      (SELECT id FROM customers WHERE id = ${nameOrId} AND kind = 'source'),
      (SELECT customer_id FROM lead_source_names WHERE key = ${key}),
      (SELECT id FROM customers
       WHERE kind = 'source' AND lead_intake_source_key(name) = ${key}
       ORDER BY created_at, id LIMIT 1)
    )`;
}

/**
 * The version of the list of source accounts: how many changes it has had, kept by triggers on customers in
 * per-connection slots (prisma/migrations/*_source_list_version). Different lists never share a version, and
 * reading it costs at most 16 rows whatever the number of sources (the list itself: 397 ms and 10.5 MB at 100,000).
 */
const sourceListVersionSql = Prisma.sql`SELECT coalesce(sum(changes), 0)::text AS version FROM lead_source_list_versions`;

export async function sourceListVersion(db: Db): Promise<string> {
  const [row] = await db.$queryRaw<{ version: string }[]>(sourceListVersionSql);
  return row.version;
}

/** Every source account, the `ads` among them, and the version of this list, from one snapshot. */
export async function listSources(db: Db): Promise<{ version: string; sources: Source[]; ads: Source[] }> {
  const [versions, rows] = await db.$transaction(
    [
      db.$queryRaw<{ version: string }[]>(sourceListVersionSql),
      db.customer.findMany({ where: { kind: "source" }, select: sourceSelect, orderBy: [{ name: "asc" }, { id: "asc" }] }),
    ],
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead },
  );
  const sources = rows.map(toSource);
  return { version: versions[0].version, sources, ads: sources.filter((s) => s.type === "ads") };
}
