// GET /api/leads latency at growing table sizes (unfiltered, one source; at the largest
// also offset 500,000 and an offset past the end), and the two small reads (sources, agents).
import type pg from "pg";
import { fillTo, SOURCES, USERS } from "./data";
import { load } from "./load";

const SIZES = [10_000, 100_000, 1_000_000];
const GET_SECONDS = Number(process.env.BENCH_GET_SECONDS ?? 5);
const FILTERED_SOURCE = "Bench Source 7";

export interface ListFigures {
  p50Ms: number;
  p99Ms: number;
  filteredP50Ms: number;
  filteredP99Ms: number;
  deepOffsetP50Ms?: number;
  deepOffsetP99Ms?: number;
  pastEndOffsetP50Ms?: number;
  pastEndOffsetP99Ms?: number;
}

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
    }
  }
  return list;
}

export async function measureReads(service: string): Promise<ReadFigures> {
  const sources = await load(`${service}/api/leads/sources`, 4, GET_SECONDS);
  const agents = await load(`${service}/api/leads/agents`, 4, GET_SECONDS);
  return {
    sources: { count: SOURCES, p50Ms: sources.p50, p99Ms: sources.p99 },
    agents: { users: USERS, p50Ms: agents.p50, p99Ms: agents.p99 },
  };
}
