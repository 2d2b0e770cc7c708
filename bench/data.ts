// Data loading: the sources and users every run starts with, and source-referred
// leads in bulk with set-based SQL (not through the API) for the list timings.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { HOST_NAMES, type HostField, type HostNames } from "@/lib/db/host-names";
import { quoted } from "@/lib/db/layout";
import { migrate } from "@/lib/db/migrate";
import { removeEmbeddedCluster, startEmbeddedPostgres } from "@/lib/runtime/embedded-postgres.mjs";
import { freePort } from "@/scripts/process-group";

export const SOURCES = 200;
export const USERS = 500;

/**
 * The 200 sources (with the 4 configured default sources) and 500 users of every run, written to the tables and
 * columns `names` gives: the module's own, or a mapped host's (bench/mapped.ts).
 */
export async function seedSourcesAndUsers(pool: pg.Pool, names: HostNames = HOST_NAMES): Promise<void> {
  const customers = quoted(names.Customer.table);
  const customer = (field: HostField<"Customer">) => columnOf(names.Customer.columns, field);
  await pool.query(
    `INSERT INTO ${customers} (${customer("id")}, ${customer("kind")}, ${customer("name")}, ${customer("sourceType")})
     SELECT 'src_bench_' || g, 'source', 'Bench Source ' || g, CASE WHEN g % 2 = 0 THEN 'ads' ELSE 'other' END
     FROM generate_series(1, $1::int) g`,
    [SOURCES - 4], // plus the 4 configured default sources
  );
  await pool.query(
    `INSERT INTO lead_source_names (key, customer_id)
     SELECT lead_intake_source_key(${customer("name")}), ${customer("id")} FROM ${customers}
     WHERE ${customer("id")} LIKE 'src_bench_%'`,
  );
  const user = (field: HostField<"User">) => columnOf(names.User.columns, field);
  await pool.query(
    `INSERT INTO ${quoted(names.User.table)} (${user("platformId")}, ${user("name")}, ${user("accessLevels")})
     SELECT CASE WHEN g % 5 = 0 THEN NULL ELSE 'plat_' || g END, 'User ' || g,
            CASE WHEN g % 3 = 0 THEN ARRAY['manager'] ELSE ARRAY['sales'] END
     FROM generate_series(1, $1::int) g`,
    [USERS],
  );
}

/** A host column the seed writes, quoted; a host may lack some (lib/db/host-names.ts), but not these. */
function columnOf(columns: Record<string, string | null>, field: string): string {
  const column = columns[field];
  if (column === null) throw new Error(`the benchmark's seed needs the host's ${field} column`);
  return quoted(column);
}

/** Fills the database to `size` source-referred leads with set-based SQL (not through the API). */
export async function fillTo(pool: pg.Pool, size: number): Promise<void> {
  const { rows } = await pool.query<{ n: number; max: number }>(
    "SELECT count(*)::int AS n, coalesce(max(id), 0)::int AS max FROM referrals",
  );
  const missing = size - rows[0].n;
  if (missing <= 0) return;
  const from = rows[0].max + 1;
  const to = from + missing - 1;
  await pool.query(
    `INSERT INTO customers (id, kind, name, mobile_number)
     SELECT 'cus_bench_' || g, 'person', 'Lead ' || g, '6012' || lpad(g::text, 7, '0')
     FROM generate_series($1::int, $2::int) g`,
    [from, to],
  );
  // Loaded in bulk with the count triggers off; the counts are then rebuilt in one transaction.
  await pool.query("ALTER TABLE referrals DISABLE TRIGGER USER");
  await pool.query(
    `WITH sources AS (SELECT array_agg(id ORDER BY id) AS ids FROM customers WHERE kind = 'source')
     INSERT INTO referrals (referrer_customer_id, lead_customer_id, lead_name, mobile_number, status, state, city,
                            address, relationship, project_type, remark, created_at)
     SELECT ids[1 + g % array_length(ids, 1)], 'cus_bench_' || g, 'Lead ' || g, '6012' || lpad(g::text, 7, '0'),
            (ARRAY['Pending', 'Assigned', 'Contacted', 'Qualified'])[1 + g % 4], 'Selangor', 'Shah Alam',
            g || ' Jalan Bench', 'Other', 'OTHERS', '', now() - g * interval '1 second'
     FROM sources, generate_series($1::int, $2::int) g`,
    [from, to],
  );
  await pool.query("ALTER TABLE referrals ENABLE TRIGGER USER");
  await recount(pool);
}

/** The tables of the kept counts. */
export const COUNT_TABLES = [
  "lead_referrer_counts",
  "lead_source_lead_counts",
  "lead_source_lead_blocks",
  "lead_source_lead_groups",
  "lead_per_source_lead_blocks",
  "lead_per_source_lead_groups",
];

/** Rebuilds every kept count from referrals in one transaction, after a load with the count triggers off. */
export async function recount(pool: pg.Pool): Promise<void> {
  const sourced = "referrals r JOIN customers c ON c.id = r.referrer_customer_id AND c.kind = 'source'";
  await pool.query(
    `BEGIN;
     DELETE FROM ${COUNT_TABLES.join("; DELETE FROM ")};
     INSERT INTO lead_referrer_counts (customer_id, slot, total)
     SELECT referrer_customer_id, 0, count(*) FROM referrals GROUP BY referrer_customer_id;
     INSERT INTO lead_per_source_lead_blocks (customer_id, block, slot, total)
     SELECT r.referrer_customer_id, r.id / lead_intake_lead_block_size(), 0, count(*) FROM ${sourced} GROUP BY 1, 2;
     INSERT INTO lead_per_source_lead_groups (customer_id, block_group, slot, total)
     SELECT customer_id, block / lead_intake_lead_block_size(), 0, sum(total) FROM lead_per_source_lead_blocks GROUP BY 1, 2;
     INSERT INTO lead_source_lead_blocks (block, slot, total)
     SELECT block, 0, sum(total) FROM lead_per_source_lead_blocks GROUP BY 1;
     INSERT INTO lead_source_lead_groups (block_group, slot, total)
     SELECT block / lead_intake_lead_block_size(), 0, sum(total) FROM lead_source_lead_blocks GROUP BY 1;
     INSERT INTO lead_source_lead_counts (slot, total) SELECT 0, coalesce(sum(total), 0) FROM lead_source_lead_blocks;
     COMMIT`,
  );
  // Vacuumed as well, so the measurements do not share the cores with the autovacuum the bulk load triggers.
  await pool.query(`VACUUM (ANALYZE) customers, referrals, ${COUNT_TABLES.join(", ")}`);
}

/**
 * A measurement run alone: a fresh embedded PostgreSQL, migrated, with the run's sources and users, removed after
 * `measure` (given its URL and data folder).
 */
export async function withBenchDatabase<T>(measure: (databaseUrl: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), "lead-intake-bench-pg-"));
  const database = await startEmbeddedPostgres({ dir, port: await freePort(), database: "bench", persistent: false });
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  try {
    await migrate(database.url);
    await seedSourcesAndUsers(pool);
    return await measure(database.url, dir);
  } finally {
    await pool.end();
    await database.stop();
    removeEmbeddedCluster(dir);
  }
}
