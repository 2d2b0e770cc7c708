// The cost of a request against the number of source accounts, at 200 then 100,000 (bench/README.md, "Method").
// Part of `npm run bench`; standalone:
//   npx tsx bench/sources-scale.ts <service url> <database url> <key>
import type pg from "pg";

export const MANY_SOURCES = 100_000;
const REQUESTS = Number(process.env.BENCH_SCALE_REQUESTS ?? 200);

interface Timing {
  p50Ms: number;
  p99Ms: number;
}

export interface SourcesScale {
  sources: number;
  newNamePost: Timing;
  unknownReferrerGet: Timing;
  listFirstPage: Timing;
  sourcesList: Timing & { bytes: number };
  sourcesListNotModified: Timing & { bytes: number };
}

/** Sequential requests, one connection: the latency of one request, not throughput. */
async function time(
  count: number,
  send: (i: number) => Promise<Response>,
  status?: number,
): Promise<Timing & { bytes: number }> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await send(i);
    const body = await response.arrayBuffer();
    ms.push(performance.now() - started);
    if (status === undefined ? !response.ok : response.status !== status)
      throw new Error(`${response.url}: ${response.status}`);
    bytes = body.byteLength;
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] * 10) / 10;
  return { p50Ms: at(0.5), p99Ms: at(0.99), bytes };
}

async function measure(pool: pg.Pool, service: string, key: string, round: string): Promise<SourcesScale> {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const get = (path: string, more: Record<string, string> = {}) =>
    fetch(`${service}${path}`, { headers: { ...headers, ...more } });
  const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM customers WHERE kind = 'source'`);
  const post = (i: number) =>
    fetch(`${service}/api/leads`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        leadName: "Scale Lead",
        leadMobileNumber: "012-345 6789",
        referrer: `New Scale Source ${round} ${i}`,
      }),
    });
  const latency = ({ p50Ms, p99Ms }: Timing) => ({ p50Ms, p99Ms });
  /** The list's current ETag, as a caller that keeps the list has it. */
  const currentEtag = async () => {
    const listed = await get("/api/leads/sources");
    await listed.arrayBuffer();
    return listed.headers.get("etag") ?? "";
  };
  return {
    sources: rows[0].n,
    newNamePost: latency(await time(REQUESTS, post)),
    unknownReferrerGet: latency(
      await time(REQUESTS, (i) => get(`/api/leads?referrer=${encodeURIComponent(`Unknown ${round} ${i}`)}`)),
    ),
    listFirstPage: latency(await time(REQUESTS, () => get("/api/leads?limit=100"))),
    sourcesList: await time(Math.max(5, REQUESTS / 20), () => get("/api/leads/sources")),
    sourcesListNotModified: await currentEtag().then((etag) =>
      time(REQUESTS, () => get("/api/leads/sources", { "if-none-match": etag }), 304),
    ),
  };
}

/**
 * Source accounts the host added with its own SQL (no name keys), up to `total`, each with one lead (a source
 * account is created by a lead's POST, so each has one): then VACUUM ANALYZE.
 */
async function addHostSources(pool: pg.Pool, total: number): Promise<void> {
  await pool.query(
    `WITH added AS (
       INSERT INTO customers (id, kind, name, source_type)
       SELECT 'src_scale_' || g, 'source', 'Host Scale Source ' || g, CASE WHEN g % 2 = 0 THEN 'ads' ELSE 'other' END
       FROM generate_series(1, $1::int - (SELECT count(*)::int FROM customers WHERE kind = 'source')) g
       RETURNING id
     ),
     persons AS (
       INSERT INTO customers (id, kind, name, mobile_number)
       SELECT 'cus_scale_' || substr(id, 11), 'person', 'Scale Lead', '60123456789' FROM added
       RETURNING id
     )
     INSERT INTO referrals (referrer_customer_id, lead_customer_id, lead_name, mobile_number, status, created_at)
     SELECT 'src_scale_' || substr(id, 11), id, 'Scale Lead', '60123456789', 'Pending', now() FROM persons`,
    [total],
  );
  await pool.query("VACUUM (ANALYZE) customers, referrals, lead_source_names, lead_referrer_counts");
}

export interface SourcesScaleFigures {
  few: SourcesScale;
  many: SourcesScale;
  ratios: Record<"newNamePostP50" | "unknownReferrerGetP50" | "listFirstPageP50" | "sourcesListP50", number>;
}

export async function measureSourcesScale(pool: pg.Pool, service: string, key: string): Promise<SourcesScaleFigures> {
  const few = await measure(pool, service, key, "few");
  await addHostSources(pool, MANY_SOURCES);
  const many = await measure(pool, service, key, "many");
  const ratio = (pick: (s: SourcesScale) => Timing) => Math.round((pick(many).p50Ms / pick(few).p50Ms) * 100) / 100;
  return {
    few,
    many,
    ratios: {
      newNamePostP50: ratio((s) => s.newNamePost),
      unknownReferrerGetP50: ratio((s) => s.unknownReferrerGet),
      listFirstPageP50: ratio((s) => s.listFirstPage),
      sourcesListP50: ratio((s) => s.sourcesList),
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [service, databaseUrl, key] = process.argv.slice(2);
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  try {
    console.log(JSON.stringify(await measureSourcesScale(pool, service, key), null, 2));
  } finally {
    await pool.end();
  }
}
