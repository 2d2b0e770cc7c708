// `npm run bench`: the service beside its limits, in one run, on a fresh embedded PostgreSQL (bench/README.md). One
// module per job; a further measurement is one module with one call below, its figures one field of the result.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { migrate } from "@/lib/db/migrate";
import { removeEmbeddedCluster, startEmbeddedPostgres } from "@/lib/runtime/embedded-postgres.mjs";
import { commandLine } from "@/scripts/host/check/command-line";
import { freePort } from "@/scripts/process-group";
import { measureBurst } from "./burst";
import { serverRssMb } from "./cpu";
import { seedSourcesAndUsers } from "./data";
import { measureHostBulk } from "./host-bulk";
import { benchImport } from "./import";
import { measureList, measureReads } from "./list";
import { KEY } from "./load";
import { measureMapped } from "./mapped";
import { measureOptions } from "./options";
import { measurePooled } from "./pooled";
import { measurePost, warmPost } from "./post";
import { toResult, writeResult } from "./report";
import { buildServers, startServers, stopServers } from "./servers";
import { measureSourcesScale } from "./sources-scale";

async function main() {
  const startedAt = Date.now();
  console.log("Building the service and the framework floor...");
  buildServers();

  const dir = await mkdtemp(path.join(tmpdir(), "lead-intake-bench-pg-"));
  const database = await startEmbeddedPostgres({ dir, port: await freePort(), database: "bench", persistent: false });
  await migrate(database.url);
  const pool = new pg.Pool({ connectionString: database.url, max: 64 });
  // An idle connection the server ends is said, not left to end the run as an unhandled 'error' event.
  pool.on("error", (error) => console.error(`An idle database connection of the bench ended: ${error.message}`));
  try {
    const servers = await startServers(database.url);
    try {
      await seedSourcesAndUsers(pool);
      const rssStart = serverRssMb(servers.service.group);
      await warmPost(servers);
      const { post, cpu } = await measurePost(servers, pool, dir);
      console.log("POST burst: 2,000 connections at once after 16 steady ones...");
      const burst = await measureBurst(servers.service.url, pool);
      console.log("POST at 64 connections: three processes behind HAProxy on PgBouncer beside the one direct...");
      const pooled = await measurePooled(servers.service, database.url);
      console.log("Server CPU per POST at 16 connections with a rate limit, and with metrics, beside neither...");
      const options = await measureOptions(database.url, dir);
      console.log("Creation at 16 at a time with a host's own names beside the module's, in databases of their own...");
      const mapped = await measureMapped(database.url, dir);
      const list = await measureList(servers.service.url, pool);
      const reads = await measureReads(servers.service.url);
      const rssEnd = serverRssMb(servers.service.group);
      console.log("Requests against the number of sources (200, then 100,000)...");
      const sourcesScale = await measureSourcesScale(pool, servers.service.url, KEY);
      console.log(
        "The host's INSERT, UPDATE and DELETE of 100,000 referrals with the module's triggers and without...",
      );
      const hostBulk = await measureHostBulk(pool);
      console.log("The importer on 5,000 rows beside raw POST at its concurrency...");
      const imported = await benchImport(servers.service.url, KEY);
      const rssMb = { start: rssStart, end: rssEnd };
      const measurements = {
        post,
        cpuMsPerRequest: cpu,
        burst,
        pooled,
        options,
        mapped,
        list,
        reads,
        import: imported,
        sourcesScale,
        hostBulk,
        rssMb,
      };
      await writeResult(toResult(measurements, startedAt));
    } finally {
      await stopServers(servers);
    }
  } finally {
    await pool.end();
    await database.stop();
    removeEmbeddedCluster(dir);
  }
}

commandLine(
  "Usage: npm run bench\n\nThe service beside its limits, in one run, on a fresh embedded PostgreSQL; writes bench/results (bench/README.md).",
);
await main();
