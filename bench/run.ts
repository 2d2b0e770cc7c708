// `npm run bench`: builds and starts the production server on a fresh embedded
// PostgreSQL and measures, in one run, the service beside its limits: a no-op
// Next.js route (the framework floor), a bare node:http + pg server doing the same
// creation transaction, and that transaction driven directly through pg. Writes
// bench/results/latest.{json,md,svg} and a dated copy of the JSON.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { migrate } from "@/lib/db/migrate";
import { startEmbeddedPostgres } from "@/scripts/embedded-postgres.mjs";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";
import { renderChart } from "./chart";
import { benchImport } from "./import";
import { createLeadWithPg } from "./lead-transaction";

const KEY = "bench-key";
const CONNECTIONS = [1, 4, 16, 64];
const SIZES = [10_000, 100_000, 1_000_000];
const POST_SECONDS = Number(process.env.BENCH_POST_SECONDS ?? 8);
const GET_SECONDS = Number(process.env.BENCH_GET_SECONDS ?? 5);
const SOURCES = 200;
const USERS = 500;
const RESULTS = path.join(import.meta.dirname, "results");

const leadBody = {
  leadName: "Bench Lead",
  leadMobileNumber: "012-345 6789",
  referrer: "Facebook Ads",
};

interface Load {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
}

async function load(url: string, connections: number, seconds: number, method: "GET" | "POST" = "GET"): Promise<Load> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    method,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: method === "POST" ? JSON.stringify(leadBody) : undefined,
  });
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed) throw new Error(`${method} ${url}: ${failed} failed requests of ${result.requests.total}`);
  return { rps: round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total };
}

/** Runs the creation transaction directly through pg, `connections` at a time. */
async function databaseLimit(pool: pg.Pool, connections: number, seconds: number): Promise<number> {
  const input = { ...leadBody, leadMobileNumber: "60123456789" } as Parameters<typeof createLeadWithPg>[1];
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        await createLeadWithPg(pool, input);
        done++;
      }
    }),
  );
  return round(done / seconds);
}

const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));

/** CPU time used so far, in ms: by a server's process group, by all PostgreSQL processes, and by the whole machine. */
function cpuNow(group: ProcessGroup): { server: number; database: number; machine: number } {
  const pids = (args: string[]) =>
    execFileSync("ps", ["-o", "pid=", ...args], { encoding: "utf8" }).split("\n").filter((line) => line.trim());
  const ticks = (pid: string) => {
    try {
      // Fields after the command name, which can hold spaces: utime, stime, then cutime and cstime, the time
      // of ended children (PostgreSQL's closed connections count in the postmaster's).
      const fields = readFileSync(`/proc/${pid.trim()}/stat`, "utf8").split(") ")[1].split(" ");
      return fields.slice(11, 15).reduce((total, field) => total + Number(field), 0);
    } catch {
      return 0; // the process ended in between
    }
  };
  const sum = (list: string[]) => list.reduce((total, pid) => total + ticks(pid), 0) * TICK_MS;
  const [user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8").split("\n")[0].split(/\s+/).slice(1).map(Number);
  return {
    server: sum(pids(["-g", String(group.pid)])),
    database: sum(pids(["-C", "postgres"])),
    machine: (user + nice + system + irq + softirq + steal) * TICK_MS,
  };
}

/** Runs `load` and returns its result with the CPU ms per request it cost the server, PostgreSQL and the machine. */
async function withCpu(group: ProcessGroup, run: () => Promise<Load>): Promise<Load & { cpuMs: Record<string, number> }> {
  const before = cpuNow(group);
  const result = await run();
  const after = cpuNow(group);
  const perRequest = (key: keyof typeof before) => round2((after[key] - before[key]) / result.requests);
  return { ...result, cpuMs: { server: perRequest("server"), database: perRequest("database"), machine: perRequest("machine") } };
}

/** Resident memory of the `next-server` process inside a server's process group, in MB. */
function serverRssMb(group: ProcessGroup): number {
  const lines = execFileSync("ps", ["-o", "rss=,args=", "-g", String(group.pid)], { encoding: "utf8" }).split("\n");
  const server = lines.find((line) => line.includes("next-server"));
  if (!server) throw new Error("no next-server process found");
  return round(Number(server.trim().split(/\s+/)[0]) / 1024);
}

/** Fills the database to `size` source-referred leads with set-based SQL (not through the API). */
async function fillTo(pool: pg.Pool, size: number): Promise<void> {
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
  // Loaded in bulk with the per-row count trigger off; the counts are then rebuilt in one statement.
  await pool.query("ALTER TABLE referrals DISABLE TRIGGER lead_intake_count_referrals");
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
  await pool.query("ALTER TABLE referrals ENABLE TRIGGER lead_intake_count_referrals");
  await pool.query(
    `BEGIN;
     DELETE FROM lead_referrer_counts;
     INSERT INTO lead_referrer_counts (customer_id, slot, total)
     SELECT referrer_customer_id, 0, count(*) FROM referrals GROUP BY referrer_customer_id;
     COMMIT`,
  );
  // Vacuumed as well, so the measurements do not share the cores with the autovacuum the bulk load triggers.
  await pool.query("VACUUM (ANALYZE) customers, referrals, lead_referrer_counts");
}

async function seedSourcesAndUsers(pool: pg.Pool): Promise<void> {
  await pool.query(
    `INSERT INTO customers (id, kind, name, source_type)
     SELECT 'src_bench_' || g, 'source', 'Bench Source ' || g, CASE WHEN g % 2 = 0 THEN 'ads' ELSE 'other' END
     FROM generate_series(1, $1::int) g`,
    [SOURCES - 4], // plus the 4 configured default sources
  );
  await pool.query(
    `INSERT INTO lead_source_names (key, customer_id) SELECT lower(name), id FROM customers WHERE id LIKE 'src_bench_%'`,
  );
  await pool.query(
    `INSERT INTO users (platform_id, name, access_levels)
     SELECT CASE WHEN g % 5 = 0 THEN NULL ELSE 'plat_' || g END, 'User ' || g,
            CASE WHEN g % 3 = 0 THEN ARRAY['manager'] ELSE ARRAY['sales'] END
     FROM generate_series(1, $1::int) g`,
    [USERS],
  );
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

async function main() {
  const started = Date.now();
  console.log("Building the service and the framework floor...");
  execFileSync("npm", ["run", "build"], { stdio: ["ignore", "ignore", "inherit"] });
  execFileSync("npx", ["next", "build", "bench/floor"], { stdio: ["ignore", "ignore", "inherit"] });

  const dir = await mkdtemp(path.join(tmpdir(), "lead-intake-bench-pg-"));
  const database = await startEmbeddedPostgres({ dir, port: await freePort(), database: "bench", persistent: false });
  await migrate(database.url);
  const pool = new pg.Pool({ connectionString: database.url, max: 64 });
  const servers: ProcessGroup[] = [];
  try {
    const [servicePort, floorPort, barePort] = await Promise.all([freePort(), freePort(), freePort()]);
    const service = `http://127.0.0.1:${servicePort}`;
    const floor = `http://127.0.0.1:${floorPort}`;
    const bare = `http://127.0.0.1:${barePort}`;
    const env = { DATABASE_URL: database.url, LEADS_API_KEY: KEY };
    servers.push(
      await startProcessGroup("node", ["scripts/start.mjs", "--no-build"], { ...env, PORT: String(servicePort) }, `${service}/api/leads/sources`),
      await startProcessGroup("npx", ["next", "start", "bench/floor", "-p", String(floorPort)], {}, `${floor}/api/noop`),
      await startProcessGroup("npx", ["tsx", "bench/bare-server.ts"], { ...env, PORT: String(barePort) }, bare),
    );
    await seedSourcesAndUsers(pool);
    const rssStart = serverRssMb(servers[0]);

    // Warm every path once so first-request work (migrations check, JIT) is not measured.
    for (const url of [`${service}/api/leads`, `${floor}/api/noop`, `${bare}/api/leads`]) await load(url, 4, 2, "POST");

    const post: Record<string, Record<string, number>> = {};
    const cpu: Result["cpuMsPerRequest"] = {};
    for (const connections of CONNECTIONS) {
      console.log(`POST at ${connections} connections...`);
      const [serviceGroup, floorGroup, bareGroup] = servers;
      const serviceLoad = await withCpu(serviceGroup, () => load(`${service}/api/leads`, connections, POST_SECONDS, "POST"));
      const floorLoad = await withCpu(floorGroup, () => load(`${floor}/api/noop`, connections, POST_SECONDS, "POST"));
      const bareLoad = await withCpu(bareGroup, () => load(`${bare}/api/leads`, connections, POST_SECONDS, "POST"));
      cpu[connections] = { service: serviceLoad.cpuMs, floor: floorLoad.cpuMs, bare: bareLoad.cpuMs };
      post[connections] = {
        serviceRps: serviceLoad.rps,
        floorRps: floorLoad.rps,
        bareRps: bareLoad.rps,
        databaseRps: await databaseLimit(pool, connections, POST_SECONDS),
        serviceP50Ms: serviceLoad.p50,
        serviceP99Ms: serviceLoad.p99,
        floorP50Ms: floorLoad.p50,
        bareP50Ms: bareLoad.p50,
      };
    }

    console.log("Importer on 5,000 rows, and raw POST at its concurrency...");
    const imported = await benchImport(service, KEY);
    console.log(`importer ${imported.rowsPerSecond} rows/s, raw POST ${imported.postRpsAtSameConcurrency} requests/s`);

    const filteredSource = "Bench Source 7";
    const list: Record<string, Record<string, number>> = {};
    for (const size of SIZES) {
      console.log(`GET /api/leads at ${size} leads...`);
      await fillTo(pool, size);
      const unfiltered = await load(`${service}/api/leads?limit=100`, 4, GET_SECONDS);
      const filtered = await load(
        `${service}/api/leads?limit=100&referrer=${encodeURIComponent(filteredSource)}`,
        4,
        GET_SECONDS,
      );
      list[size] = {
        p50Ms: unfiltered.p50,
        p99Ms: unfiltered.p99,
        filteredP50Ms: filtered.p50,
        filteredP99Ms: filtered.p99,
      };
      if (size === 1_000_000) {
        const deep = await load(`${service}/api/leads?limit=100&offset=500000`, 4, GET_SECONDS);
        list[size].deepOffsetP50Ms = deep.p50;
        list[size].deepOffsetP99Ms = deep.p99;
      }
    }

    const sources = await load(`${service}/api/leads/sources`, 4, GET_SECONDS);
    const agents = await load(`${service}/api/leads/agents`, 4, GET_SECONDS);
    const rssEnd = serverRssMb(servers[0]);

    const measuredAt = new Date().toISOString();
    const result = {
      measuredAt,
      machine: `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`,
      post,
      list,
      import: imported,
      reads: {
        sources: { count: SOURCES, p50Ms: sources.p50, p99Ms: sources.p99 },
        agents: { users: USERS, p50Ms: agents.p50, p99Ms: agents.p99 },
      },
      ratios: {
        postServiceOverFloorAt16: round2(post[16].serviceRps / post[16].floorRps),
        postServiceOverBareAt16: round2(post[16].serviceRps / post[16].bareRps),
        listP50At1mOver10k: round2(list[1_000_000].p50Ms / list[10_000].p50Ms),
        listFilteredP50At1mOver10k: round2(list[1_000_000].filteredP50Ms / list[10_000].filteredP50Ms),
        // What service / floor would be if the service's own work cost nothing beyond the
        // floor's and the database's: the machine's CPU bounds both (see README, Benchmark).
        postFloorCeilingAt16: round2(cpu[16].floor.machine / (cpu[16].floor.machine + cpu[16].service.database)),
        importOverPost: round2(imported.rowsPerSecond / imported.postRpsAtSameConcurrency),
      },
      cpuMsPerRequest: cpu,
      rssMb: { start: rssStart, end: rssEnd },
      durationSeconds: Math.round((Date.now() - started) / 1000),
    };
    const json = JSON.stringify(result, null, 2) + "\n";
    const markdown = toMarkdown(result);
    await writeFile(path.join(RESULTS, "latest.json"), json);
    await writeFile(path.join(RESULTS, `${measuredAt.slice(0, 10)}.json`), json);
    await writeFile(path.join(RESULTS, "latest.md"), markdown);
    await writeFile(path.join(RESULTS, "latest.svg"), await renderChart(result));
    console.log(`\n${markdown}`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await pool.end();
    await database.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

type Result = {
  measuredAt: string;
  machine: string;
  post: Record<string, Record<string, number>>;
  list: Record<string, Record<string, number>>;
  reads: { sources: { count: number; p50Ms: number; p99Ms: number }; agents: { users: number; p50Ms: number; p99Ms: number } };
  ratios: Record<string, number>;
  /** Per connection count, then per server: CPU ms per request of the server, PostgreSQL and the machine. */
  cpuMsPerRequest: Record<string, Record<"service" | "floor" | "bare", Record<string, number>>>;
  rssMb: { start: number; end: number };
  durationSeconds: number;
};

export type BenchResult = Result;

function toMarkdown(r: Result): string {
  const lines = [
    `Measured ${r.measuredAt} on ${r.machine}, in ${r.durationSeconds} s. Load generator (autocannon) on the same machine.`,
    "",
    "| POST /api/leads | service req/s | floor req/s | bare req/s | database tx/s | service p50 ms | service p99 ms |",
    "|---|---|---|---|---|---|---|",
    ...Object.entries(r.post).map(
      ([c, p]) =>
        `| ${c} connections | ${p.serviceRps} | ${p.floorRps} | ${p.bareRps} | ${p.databaseRps} | ${p.serviceP50Ms} | ${p.serviceP99Ms} |`,
    ),
    "",
    "| GET /api/leads (limit 100) | p50 ms | p99 ms | one source p50 ms | one source p99 ms | offset 500000 p50 ms |",
    "|---|---|---|---|---|---|",
    ...Object.entries(r.list).map(
      ([size, l]) =>
        `| ${Number(size).toLocaleString("en")} leads | ${l.p50Ms} | ${l.p99Ms} | ${l.filteredP50Ms} | ${l.filteredP99Ms} | ${l.deepOffsetP50Ms ?? ""} |`,
    ),
    "",
    `GET /api/leads/sources (${r.reads.sources.count} sources): p50 ${r.reads.sources.p50Ms} ms, p99 ${r.reads.sources.p99Ms} ms. ` +
      `GET /api/leads/agents (${r.reads.agents.users} users): p50 ${r.reads.agents.p50Ms} ms, p99 ${r.reads.agents.p99Ms} ms.`,
    "",
    "| CPU ms per POST at 16 connections | server process | PostgreSQL | whole machine |",
    "|---|---|---|---|",
    ...(["service", "floor", "bare"] as const).map((name) => {
      const c = r.cpuMsPerRequest[16][name];
      return `| ${name} | ${c.server} | ${c.database} | ${c.machine} |`;
    }),
    "",
    "| Ratio | Value | Target |",
    "|---|---|---|",
    `| POST service / floor at 16 connections | ${r.ratios.postServiceOverFloorAt16} | >= 0.7 |`,
    `| Importer rows/s / raw POST requests/s at its concurrency | ${r.ratios.importOverPost} | >= 0.8 |`,
    `| POST service / bare at 16 connections | ${r.ratios.postServiceOverBareAt16} | |`,
    `| POST ceiling of service / floor set by PostgreSQL's CPU per lead | ${r.ratios.postFloorCeilingAt16} | |`,
    `| List p50 at 1M / at 10k | ${r.ratios.listP50At1mOver10k} | <= 2 |`,
    `| List p50 one source at 1M / at 10k | ${r.ratios.listFilteredP50At1mOver10k} | <= 2 |`,
    `| Server RSS start / end (MB) | ${r.rssMb.start} / ${r.rssMb.end} | end < 300 |`,
    "",
  ];
  return lines.join("\n");
}

await main();
