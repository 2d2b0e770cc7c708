// Deep offsets at 10M leads, half from one source, and the count trigger's cost per write (bench/README.md); not in
// CI or `npm run bench`. On its own embedded PostgreSQL; its figures are in docs/decisions.md:
//   npx tsx bench/probe-deep-10m.ts [leads]      (0: the cost per write alone)
import { readFileSync } from "node:fs";
import type pg from "pg";
import { leadPageSql, type LeadFilter } from "@/lib/db/store/leads";
import { COUNT_TABLES, recount, SOURCES, withBenchDatabase } from "./data";

const LEADS = Number(process.argv[2] ?? 10_000_000);
const CHUNK = 1_000_000;
const ONE_SOURCE = "src_bench_1";
const WRITES = 5_000;
const ROUNDS = 3;

/** The count function's text as a migration left it. */
function countFunctionOf(migration: string): string {
  const sql = readFileSync(`prisma/migrations/${migration}/migration.sql`, "utf8");
  const start = sql.indexOf('CREATE OR REPLACE FUNCTION "lead_intake_count_referrals"()');
  return sql.slice(start, sql.indexOf("\n$$;", start) + 4);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** CPU milliseconds (user and system) the process `pid` has used so far, from /proc (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  // utime and stime, fields 14 and 15 of stat, in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Microseconds of the backend's CPU per one-record transaction, by what the triggers keep, rounds taken in turn: CPU,
 * not elapsed time, which the shared machine's load moves far more.
 */
async function writeCost(pool: pg.Pool): Promise<Record<string, number>> {
  await pool.query(`CREATE PROCEDURE probe_inserts(n int) LANGUAGE plpgsql AS $$
    BEGIN
      FOR i IN 1..n LOOP
        INSERT INTO referrals (referrer_customer_id, lead_name, status) VALUES ('${ONE_SOURCE}', 'Probe', 'Pending');
        COMMIT;
      END LOOP;
    END $$`);
  const modes: Record<string, string | null> = {
    before: countFunctionOf("20261126000000_statement_counts"),
    now: countFunctionOf("20261127000000_source_lead_groups"),
    none: null,
  };
  const times: Record<string, number[]> = { before: [], now: [], none: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [mode, fn] of Object.entries(modes)) {
      if (fn) await pool.query(fn);
      else await pool.query("ALTER TABLE referrals DISABLE TRIGGER USER");
      const client = await pool.connect();
      try {
        const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
        const before = cpuMs(rows[0].pid);
        await client.query("CALL probe_inserts($1)", [WRITES]);
        times[mode].push(((cpuMs(rows[0].pid) - before) * 1000) / WRITES);
      } finally {
        client.release();
      }
      await pool.query("ALTER TABLE referrals ENABLE TRIGGER USER");
      await pool.query(`VACUUM referrals, ${COUNT_TABLES.join(", ")}`);
    }
  }
  await pool.query("DROP PROCEDURE probe_inserts(int)");
  await pool.query("TRUNCATE referrals CASCADE");
  return Object.fromEntries(Object.entries(times).map(([mode, t]) => [mode, Math.round(median(t))]));
}

/** `LEADS` referrals, every other one from one source, the rest over the other sources, in chunks; then recounted. */
async function load(pool: pg.Pool): Promise<void> {
  await pool.query("ALTER TABLE referrals DISABLE TRIGGER USER");
  for (let from = 1; from <= LEADS; from += CHUNK) {
    const started = performance.now();
    await pool.query(
      `WITH sources AS (SELECT array_agg(id ORDER BY id) AS ids FROM customers WHERE kind = 'source' AND id <> $3)
       INSERT INTO referrals (id, referrer_customer_id, lead_name, mobile_number, status, state, city, address,
                              relationship, project_type, remark, created_at)
       SELECT g, CASE WHEN g % 2 = 0 THEN $3 ELSE ids[1 + g % array_length(ids, 1)] END, 'Lead ' || g,
              '6012' || lpad(g::text, 7, '0'), 'Pending', 'Selangor', 'Shah Alam', g || ' Jalan Probe', 'Other',
              'OTHERS', '', now() - g * interval '1 second'
       FROM sources, generate_series($1::int, $2::int) g`,
      [from, Math.min(from + CHUNK - 1, LEADS), ONE_SOURCE],
    );
    console.log(`${Math.min(from + CHUNK - 1, LEADS)} leads (${Math.round(performance.now() - started)} ms)`);
  }
  await pool.query("ALTER TABLE referrals ENABLE TRIGGER USER");
  const started = performance.now();
  await recount(pool);
  console.log(`recounted and vacuumed (${Math.round(performance.now() - started)} ms)`);
}

/** p50 in ms of a statement on one connection, parallel workers off as the listing runs it. */
async function p50(client: pg.PoolClient, query: { text: string; values: unknown[] }, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await client.query(query.text, query.values);
    times.push(performance.now() - started);
  }
  return Math.round(median(times) * 10) / 10;
}

async function pages(pool: pg.Pool): Promise<Record<string, number>> {
  const client = await pool.connect();
  try {
    await client.query("SET max_parallel_workers_per_gather = 0");
    const figures: Record<string, number> = {};
    for (const [name, filter] of [
      ["all", "all sources"],
      ["oneSource", { sourceId: ONE_SOURCE }],
      ["otherSource", { sourceId: "src_bench_7" }],
    ] as [string, LeadFilter][]) {
      const { total: totalSql } = leadPageSql(filter, 100, 0);
      const { rows } = await client.query<{ total: number }>(totalSql.text, totalSql.values);
      const total = rows[0].total;
      figures[`${name}Total`] = total;
      for (const [at, offset] of [
        ["First", 0],
        ["Middle", Math.floor(total / 2)],
        ["Last", total - 100],
      ] as [string, number][]) {
        const { page } = leadPageSql(filter, 100, offset);
        figures[`${name}${at}P50Ms`] = await p50(client, { text: page.text, values: page.values }, 15);
      }
    }
    figures.oneSourceMiddleWalkedP50Ms = await p50(
      client,
      {
        text: "SELECT * FROM referrals WHERE referrer_customer_id = $1 ORDER BY id DESC LIMIT 100 OFFSET $2",
        values: [ONE_SOURCE, Math.floor(figures.oneSourceTotal / 2)],
      },
      3,
    );
    // What the whole list's seek summed before the groups: every block.
    figures.allBlocksSumP50Ms = await p50(
      client,
      { text: "SELECT block, sum(total) FROM lead_source_lead_blocks GROUP BY block", values: [] },
      15,
    );
    figures.oneSourceBlocksSumP50Ms = await p50(
      client,
      {
        text: "SELECT block, sum(total) FROM lead_per_source_lead_blocks WHERE customer_id = $1 GROUP BY block",
        values: [ONE_SOURCE],
      },
      15,
    );
    for (const table of COUNT_TABLES) {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
      figures[`rows:${table}`] = rows[0].n;
    }
    return figures;
  } finally {
    client.release();
  }
}

await withBenchDatabase(async (url) => {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    console.log(`${SOURCES} sources; backend CPU µs per one-record transaction (${ROUNDS} rounds of ${WRITES})...`);
    console.log(JSON.stringify(await writeCost(pool)));
    if (LEADS === 0) return;
    console.log(`Loading ${LEADS} leads, half from ${ONE_SOURCE}...`);
    await load(pool);
    console.log(JSON.stringify(await pages(pool), null, 2));
  } finally {
    await pool.end();
  }
});
