// GET /api/leads latency at growing table sizes (unfiltered, one source; at the largest also deep offsets, and one
// source of half the leads at its middle), and the two small reads. Standalone, after `npm run build`:
//   npx tsx bench/list.ts
import type pg from "pg";
import { fillTo, recount, SOURCES, USERS } from "./data";
import { load, round2 } from "./load";

const SIZES = [10_000, 100_000, 1_000_000];
const GET_SECONDS = Number(process.env.BENCH_GET_SECONDS ?? 5);
const FILTERED_SOURCE = "Bench Source 7";
/** The source that takes half of the largest table's leads, as a CRM's paid ads do. */
const MAIN_SOURCE = { id: "src_bench_2", name: "Bench Source 2" };

export interface ListFigures {
  p50Ms: number;
  p99Ms: number;
  filteredP50Ms: number;
  filteredP99Ms: number;
  deepOffsetP50Ms?: number;
  deepOffsetP99Ms?: number;
  pastEndOffsetP50Ms?: number;
  pastEndOffsetP99Ms?: number;
  oneSourceShare?: number;
  oneSourceFirstPageP50Ms?: number;
  oneSourceFirstPageP99Ms?: number;
  oneSourceMiddleOffsetP50Ms?: number;
  oneSourceMiddleOffsetP99Ms?: number;
}

type MainSourceFigures = Required<
  Pick<
    ListFigures,
    | "oneSourceShare"
    | "oneSourceFirstPageP50Ms"
    | "oneSourceFirstPageP99Ms"
    | "oneSourceMiddleOffsetP50Ms"
    | "oneSourceMiddleOffsetP99Ms"
  >
>;

export interface ReadFigures {
  sources: { count: number; p50Ms: number; p99Ms: number };
  agents: { users: number; p50Ms: number; p99Ms: number };
}

export async function measureList(service: string, pool: pg.Pool): Promise<Record<string, ListFigures>> {
  const list: Record<string, ListFigures> = {};
  for (const size of SIZES) {
    console.log(`GET /api/leads at ${size} leads...`);
    await fillTo(pool, size);
    const unfiltered = await load(`${service}/api/leads?limit=100`, 4, GET_SECONDS);
    const filtered = await load(
      `${service}/api/leads?limit=100&referrer=${encodeURIComponent(FILTERED_SOURCE)}`,
      4,
      GET_SECONDS,
    );
    list[size] = {
      p50Ms: unfiltered.p50,
      p99Ms: unfiltered.p99,
      filteredP50Ms: filtered.p50,
      filteredP99Ms: filtered.p99,
    };
    if (size === SIZES[SIZES.length - 1]) {
      const deep = await load(`${service}/api/leads?limit=100&offset=500000`, 4, GET_SECONDS);
      list[size].deepOffsetP50Ms = deep.p50;
      list[size].deepOffsetP99Ms = deep.p99;
      // The largest offset the spec allows: past the end of any table.
      const pastEnd = await load(`${service}/api/leads?limit=100&offset=2147483647`, 4, GET_SECONDS);
      list[size].pastEndOffsetP50Ms = pastEnd.p50;
      list[size].pastEndOffsetP99Ms = pastEnd.p99;
      Object.assign(list[size], await measureMainSource(service, pool));
    }
  }
  return list;
}

/**
 * Moves every other lead to one source (with the count triggers off, then recounted), and times that source's first
 * page and the page at the middle of its leads.
 */
async function measureMainSource(service: string, pool: pg.Pool): Promise<MainSourceFigures> {
  await pool.query("ALTER TABLE referrals DISABLE TRIGGER USER");
  await pool.query(
    `UPDATE referrals SET referrer_customer_id = CASE WHEN id % 2 = 0 THEN $1 ELSE 'src_bench_3' END
     WHERE id % 2 = 0 OR referrer_customer_id = $1`,
    [MAIN_SOURCE.id],
  );
  await pool.query("ALTER TABLE referrals ENABLE TRIGGER USER");
  await recount(pool);
  const { rows } = await pool.query<{ leads: number; all: number }>(
    `SELECT (SELECT sum(total) FROM lead_referrer_counts WHERE customer_id = $1)::int AS leads,
            (SELECT sum(total) FROM lead_source_lead_counts)::int AS all`,
    [MAIN_SOURCE.id],
  );
  const url = `${service}/api/leads?limit=100&referrer=${encodeURIComponent(MAIN_SOURCE.name)}`;
  const first = await load(url, 4, GET_SECONDS);
  const middle = await load(`${url}&offset=${Math.floor(rows[0].leads / 2)}`, 4, GET_SECONDS);
  return {
    oneSourceShare: Math.round((rows[0].leads / rows[0].all) * 1000) / 1000,
    oneSourceFirstPageP50Ms: first.p50,
    oneSourceFirstPageP99Ms: first.p99,
    oneSourceMiddleOffsetP50Ms: middle.p50,
    oneSourceMiddleOffsetP99Ms: middle.p99,
  };
}

/** listOneSourceMiddleOverFirstAt1m of the largest table's figures (target: within 2x). */
export const oneSourceMiddleOverFirst = (figures: ListFigures) =>
  round2(figures.oneSourceMiddleOffsetP50Ms! / figures.oneSourceFirstPageP50Ms!);

export async function measureReads(service: string): Promise<ReadFigures> {
  const sources = await load(`${service}/api/leads/sources`, 4, GET_SECONDS);
  const agents = await load(`${service}/api/leads/agents`, 4, GET_SECONDS);
  return {
    sources: { count: SOURCES, p50Ms: sources.p50, p99Ms: sources.p99 },
    agents: { users: USERS, p50Ms: agents.p50, p99Ms: agents.p99 },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { default: pg } = await import("pg");
  const { withBenchDatabase } = await import("./data");
  const { startService } = await import("./servers");
  const list = await withBenchDatabase(async (url) => {
    const service = await startService(url);
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      return await measureList(service.url, pool);
    } finally {
      await pool.end();
      await service.group.stop();
    }
  });
  console.log(JSON.stringify({ list, listOneSourceMiddleOverFirstAt1m: oneSourceMiddleOverFirst(list[1_000_000]) }));
}
