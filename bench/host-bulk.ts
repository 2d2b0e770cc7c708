// The host's own set-based writes with the module's count triggers beside the same statements with them disabled
// (bench/README.md, "Method"). Part of `npm run bench`; standalone, on its own embedded PostgreSQL:
//   npx tsx bench/host-bulk.ts [database url]
import type pg from "pg";
import { COUNT_TABLES, SOURCES } from "./data";
import { round2 } from "./load";

export const BULK_ROWS = 100_000;
const RUNS = 5;

interface BulkTiming {
  withTriggersMs: number;
  bareMs: number;
}

export interface HostBulkFigures {
  rows: number;
  insert: BulkTiming;
  update: BulkTiming;
  delete: BulkTiming;
  ratios: {
    hostBulkInsertOverBare100k: number;
    hostBulkUpdateOverBare100k: number;
    hostBulkDeleteOverBare100k: number;
  };
}

/**
 * The source accounts the bulk rows name: the benchmark's own, not every source, since finding an element walks the
 * array and would time that walk instead of the write.
 */
const SOURCE_IDS = `SELECT array_agg(id ORDER BY id) AS ids
  FROM (SELECT id FROM customers WHERE kind = 'source' ORDER BY created_at, id LIMIT ${SOURCES}) s`;

/** Referrals first..first+rows-1 over the source accounts, in one statement. */
const insertReferrals = (first: number, rows: number) =>
  `WITH sources AS (${SOURCE_IDS})
   INSERT INTO referrals (id, referrer_customer_id, lead_name, mobile_number, status, state, city, address, relationship,
                          project_type, remark)
   SELECT g, ids[1 + g % array_length(ids, 1)], 'Bulk ' || g, '6013' || lpad(g::text, 7, '0'), 'Pending', 'Selangor',
          'Shah Alam', g || ' Jalan Bulk', 'Other', 'OTHERS', ''
   FROM sources, generate_series(${first}, ${first + rows - 1}) g`;

/** Ids far above any the benchmark or the service makes, so the bulk rows never meet theirs. */
const BASE_ID = 500_000_000;

const STATEMENTS = {
  insert: insertReferrals(BASE_ID + BULK_ROWS, BULK_ROWS),
  // Every row moves to another source and another block of ids.
  update: `WITH sources AS (${SOURCE_IDS})
           UPDATE referrals SET referrer_customer_id = ids[1 + (id + 1) % array_length(ids, 1)], id = id + ${2 * BULK_ROWS}
           FROM sources WHERE id BETWEEN ${BASE_ID} AND ${BASE_ID + BULK_ROWS - 1}`,
  delete: `DELETE FROM referrals WHERE id BETWEEN ${BASE_ID} AND ${BASE_ID + BULK_ROWS - 1}`,
};

/**
 * Milliseconds of one statement, in a transaction rolled back afterwards; the triggers disabled inside it when bare.
 */
async function timeOnce(pool: pg.Pool, statement: string, bare: boolean): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    if (bare) await client.query("ALTER TABLE referrals DISABLE TRIGGER USER");
    const started = performance.now();
    await client.query(statement);
    const ms = performance.now() - started;
    await client.query("ROLLBACK");
    // Neither mode pays for the dead rows or the dirty pages the one before it left.
    await client.query(`VACUUM referrals, ${COUNT_TABLES.join(", ")}`);
    await client.query("CHECKPOINT");
    return ms;
  } finally {
    client.release();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timeBoth(pool: pg.Pool, statement: string): Promise<BulkTiming> {
  const on: number[] = [];
  const off: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    // Taken in turn, each mode first every other run, so neither always finds the cache the other warmed.
    for (const bare of run % 2 === 0 ? [false, true] : [true, false])
      (bare ? off : on).push(await timeOnce(pool, statement, bare));
  }
  return { withTriggersMs: Math.round(median(on)), bareMs: Math.round(median(off)) };
}

/** Needs the source accounts in place; leaves the database's rows and counts as it found them. */
export async function measureHostBulk(pool: pg.Pool): Promise<HostBulkFigures> {
  await pool.query(insertReferrals(BASE_ID, BULK_ROWS));
  await pool.query(`VACUUM (ANALYZE) referrals, ${COUNT_TABLES.join(", ")}`);
  try {
    const insert = await timeBoth(pool, STATEMENTS.insert);
    const update = await timeBoth(pool, STATEMENTS.update);
    const deleted = await timeBoth(pool, STATEMENTS.delete);
    const ratio = (t: BulkTiming) => round2(t.withTriggersMs / t.bareMs);
    return {
      rows: BULK_ROWS,
      insert,
      update,
      delete: deleted,
      ratios: {
        hostBulkInsertOverBare100k: ratio(insert),
        hostBulkUpdateOverBare100k: ratio(update),
        hostBulkDeleteOverBare100k: ratio(deleted),
      },
    };
  } finally {
    await pool.query(STATEMENTS.delete);
    await pool.query(`VACUUM (ANALYZE) referrals, ${COUNT_TABLES.join(", ")}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { default: pg } = await import("pg");
  const { mkdtemp } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const path = await import("node:path");
  const { migrate } = await import("@/lib/db/migrate");
  const { removeEmbeddedCluster, startEmbeddedPostgres } = await import("@/lib/runtime/embedded-postgres.mjs");
  const { freePort } = await import("@/scripts/process-group");
  const { seedSourcesAndUsers } = await import("./data");
  const given = process.argv[2];
  const dir = given ? null : await mkdtemp(path.join(tmpdir(), "lead-intake-bench-pg-"));
  const database = dir
    ? await startEmbeddedPostgres({ dir, port: await freePort(), database: "bench", persistent: false })
    : null;
  const url = given ?? database!.url;
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    if (database) {
      await migrate(url);
      await seedSourcesAndUsers(pool);
    }
    console.log(JSON.stringify(await measureHostBulk(pool), null, 2));
  } finally {
    await pool.end();
    await database?.stop();
    if (dir) removeEmbeddedCluster(dir);
  }
}
