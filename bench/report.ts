// Reporting: the result every run leaves (shared/bench-results.md names its fields),
// its ratios, and bench/results/latest.{json,md,svg} with a dated copy of the JSON.
import { writeFile } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import path from "node:path";
import { burstRatios, type BurstFigures } from "./burst";
import { renderChart } from "./chart";
import type { HostBulkFigures } from "./host-bulk";
import { oneSourceMiddleOverFirst, type ListFigures, type ReadFigures } from "./list";
import { round2 } from "./load";
import { mappedRatios, type MappedFigures } from "./mapped";
import { optionRatios, type OptionFigures } from "./options";
import type { PooledFigures } from "./pooled";
import type { PostCpu, PostFigures } from "./post";
import type { SourcesScaleFigures } from "./sources-scale";

const RESULTS = path.join(import.meta.dirname, "results");

/**
 * The importer's rate beside raw POSTs at its concurrency (filled by the importer's bench module; null without one).
 */
export interface ImportFigures {
  rows: number;
  concurrency: number;
  rowsPerSecond: number;
  postRpsAtSameConcurrency: number;
}

export interface Measurements {
  post: Record<string, PostFigures>;
  cpuMsPerRequest: Record<string, PostCpu>;
  burst: BurstFigures;
  pooled: PooledFigures;
  options: OptionFigures;
  mapped: MappedFigures;
  list: Record<string, ListFigures>;
  reads: ReadFigures;
  import: ImportFigures | null;
  sourcesScale: SourcesScaleFigures;
  hostBulk: HostBulkFigures;
  rssMb: { start: number; end: number };
}

export type BenchResult = Measurements & {
  measuredAt: string;
  machine: string;
  ratios: Record<string, number | null>;
  durationSeconds: number;
};

export function toResult(m: Measurements, startedAt: number): BenchResult {
  const post16 = m.post[16];
  const cpu16 = m.cpuMsPerRequest[16];
  const serviceOverFloor = post16.serviceRps / post16.floorRps;
  // What service / floor would be if the service's own work cost nothing beyond the
  // floor's and the database's: the machine's CPU bounds both (bench/README.md, "Method").
  const floorCeiling = cpu16.floor.machine / (cpu16.floor.machine + cpu16.service.database);
  return {
    measuredAt: new Date().toISOString(),
    machine: `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`,
    ...m,
    ratios: {
      postServiceOverFloorAt16: round2(serviceOverFloor),
      postServiceOverBareAt16: round2(post16.serviceRps / post16.bareRps),
      postFloorCeilingAt16: round2(floorCeiling),
      postServiceOverCeilingAt16: round2(serviceOverFloor / floorCeiling),
      postServerCpuOverFloorAt16: round2(cpu16.service.server / cpu16.floor.server),
      // The same for the floor's creation route: how much of the service's ratio one lead's
      // database round trip takes inside Next, with none of the service's own work.
      postFloorWithStatementServerCpuOverFloorAt16: round2(cpu16.floorWithStatement.server / cpu16.floor.server),
      listP50At1mOver10k: round2(m.list[1_000_000].p50Ms / m.list[10_000].p50Ms),
      listFilteredP50At1mOver10k: round2(m.list[1_000_000].filteredP50Ms / m.list[10_000].filteredP50Ms),
      // Deep and past-the-end offsets against the first page, same table, same load (target: within 5x).
      listDeepOffsetOverFirstPageAt1m: round2(m.list[1_000_000].deepOffsetP50Ms! / m.list[1_000_000].p50Ms),
      listPastEndOffsetOverFirstPageAt1m: round2(m.list[1_000_000].pastEndOffsetP50Ms! / m.list[1_000_000].p50Ms),
      listOneSourceMiddleOverFirstAt1m: oneSourceMiddleOverFirst(m.list[1_000_000]),
      importOverPost: m.import && round2(m.import.rowsPerSecond / m.import.postRpsAtSameConcurrency),
      postPooledThreeOverOneAt64: round2(m.pooled.pooledRps / m.pooled.directRps),
      ...burstRatios(m.burst),
      ...optionRatios(m.options),
      ...mappedRatios(m.mapped),
      sourcesNotModifiedOverListAt100k: round2(
        m.sourcesScale.many.sourcesListNotModified.p50Ms / m.sourcesScale.many.sourcesList.p50Ms,
      ),
      ...m.hostBulk.ratios,
    },
    durationSeconds: Math.round((Date.now() - startedAt) / 1000),
  };
}

export async function writeResult(result: BenchResult): Promise<void> {
  const json = JSON.stringify(result, null, 2) + "\n";
  const markdown = toMarkdown(result);
  await writeFile(path.join(RESULTS, "latest.json"), json);
  await writeFile(path.join(RESULTS, `${result.measuredAt.slice(0, 10)}.json`), json);
  await writeFile(path.join(RESULTS, "latest.md"), markdown);
  await writeFile(path.join(RESULTS, "latest.svg"), await renderChart(result));
  console.log(`\n${markdown}`);
}

const BULK_RATIO = {
  insert: "hostBulkInsertOverBare100k",
  update: "hostBulkUpdateOverBare100k",
  delete: "hostBulkDeleteOverBare100k",
} as const;

const SERVER_NAMES: Record<keyof PostCpu, string> = {
  service: "service",
  floor: "floor",
  floorWithStatement: "floor + statement",
  bare: "bare",
};

function toMarkdown(r: BenchResult): string {
  const lines = [
    `Measured ${r.measuredAt} on ${r.machine}, in ${r.durationSeconds} s. Load generator (autocannon) on the same machine.`,
    "",
    "| POST /api/leads | service req/s | floor req/s | floor + statement req/s | bare req/s | database tx/s | service p50 ms | service p99 ms | floor p99 ms | floor + statement p99 ms |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...Object.entries(r.post).map(
      ([c, p]) =>
        `| ${c} connections | ${p.serviceRps} | ${p.floorRps} | ${p.floorWithStatementRps} | ${p.bareRps} | ${p.databaseRps} | ` +
        `${p.serviceP50Ms} | ${p.serviceP99Ms} | ${p.floorP99Ms} | ${p.floorWithStatementP99Ms} |`,
    ),
    "",
    "| GET /api/leads (limit 100) | p50 ms | p99 ms | one source p50 ms | one source p99 ms | offset 500000 p50 ms | offset 500000 p99 ms | offset 2147483647 p50 ms |",
    "|---|---|---|---|---|---|---|---|",
    ...Object.entries(r.list).map(
      ([size, l]) =>
        `| ${Number(size).toLocaleString("en")} leads | ${l.p50Ms} | ${l.p99Ms} | ${l.filteredP50Ms} | ${l.filteredP99Ms} | ` +
        `${l.deepOffsetP50Ms ?? ""} | ${l.deepOffsetP99Ms ?? ""} | ${l.pastEndOffsetP50Ms ?? ""} |`,
    ),
    "",
    `At 1,000,000 leads with ${r.list[1_000_000].oneSourceShare} of them from one source, that source's first page: ` +
      `p50 ${r.list[1_000_000].oneSourceFirstPageP50Ms} ms, p99 ${r.list[1_000_000].oneSourceFirstPageP99Ms} ms; ` +
      `its middle offset: p50 ${r.list[1_000_000].oneSourceMiddleOffsetP50Ms} ms, ` +
      `p99 ${r.list[1_000_000].oneSourceMiddleOffsetP99Ms} ms.`,
    "",
    `GET /api/leads/sources (${r.reads.sources.count} sources): p50 ${r.reads.sources.p50Ms} ms, p99 ${r.reads.sources.p99Ms} ms. ` +
      `GET /api/leads/agents (${r.reads.agents.users} users): p50 ${r.reads.agents.p50Ms} ms, p99 ${r.reads.agents.p99Ms} ms.`,
    "",
    `Against the number of sources (p50, ${r.sourcesScale.few.sources.toLocaleString("en")} -> ${r.sourcesScale.many.sources.toLocaleString("en")} sources): ` +
      `new-name POST ${r.sourcesScale.few.newNamePost.p50Ms} -> ${r.sourcesScale.many.newNamePost.p50Ms} ms (x${r.sourcesScale.ratios.newNamePostP50}), ` +
      `GET ?referrer=<unknown> ${r.sourcesScale.few.unknownReferrerGet.p50Ms} -> ${r.sourcesScale.many.unknownReferrerGet.p50Ms} ms (x${r.sourcesScale.ratios.unknownReferrerGetP50}), ` +
      `first page ${r.sourcesScale.few.listFirstPage.p50Ms} -> ${r.sourcesScale.many.listFirstPage.p50Ms} ms (x${r.sourcesScale.ratios.listFirstPageP50}), ` +
      `GET /api/leads/sources ${r.sourcesScale.few.sourcesList.p50Ms} -> ${r.sourcesScale.many.sourcesList.p50Ms} ms ` +
      `(${Math.round(r.sourcesScale.many.sourcesList.bytes / 1024)} KB); with the ETag in If-None-Match (304) ` +
      `${r.sourcesScale.few.sourcesListNotModified.p50Ms} -> ${r.sourcesScale.many.sourcesListNotModified.p50Ms} ms ` +
      `(${r.sourcesScale.many.sourcesListNotModified.bytes} bytes).`,
    "",
    ...(r.import
      ? [
          `Importer: ${r.import.rows} rows at ${r.import.concurrency} at a time, ${r.import.rowsPerSecond} rows/s ` +
            `(POST at the same concurrency: ${r.import.postRpsAtSameConcurrency} req/s).`,
          "",
        ]
      : []),
    `POST at ${r.pooled.connections} connections, ${r.pooled.processes} processes behind HAProxy on PgBouncer ${r.pooled.pgbouncer} ` +
      `(transaction mode, ${r.pooled.poolerServerConnections} server connections, ${r.pooled.statements} statements): ${r.pooled.pooledRps} req/s, ` +
      `p99 ${r.pooled.pooledP99Ms} ms; one process direct, taken in turn: ${r.pooled.directRps} req/s, p99 ${r.pooled.directP99Ms} ms.`,
    "",
    `Creation as the route runs it, ${r.mapped.connections} at a time, in a host's own names (${r.mapped.mappedRps}/s, ` +
      `p99 ${r.mapped.mappedP99Ms} ms) beside the module's (${r.mapped.ownRps}/s, p99 ${r.mapped.ownP99Ms} ms): ` +
      `CPU ms per lead ${r.mapped.mappedCpuMs.server} / ${r.mapped.ownCpuMs.server} in the creating process, ` +
      `${r.mapped.mappedCpuMs.database} / ${r.mapped.ownCpuMs.database} in PostgreSQL (added per POST: ` +
      `${r.mapped.addedCpuMsPerPost.process} and ${r.mapped.addedCpuMsPerPost.database} ms); ` +
      `${r.mapped.refused.mapped} / ${r.mapped.refused.own} refused as busy.`,
    "",
    `POST burst: ${r.burst.connections.toLocaleString("en")} connections at once for ${r.burst.seconds} s, after ` +
      `16 steady connections (${r.burst.steadyCreatedPerSecond} created/s, p99 ${r.burst.steadyP99Ms} ms): ` +
      `${r.burst.createdPerSecond} created/s, p99 of the created ${r.burst.admittedP99Ms} ms, ${r.burst.refused} refused 429 ` +
      `CREATION_BUSY, ${r.burst.status500} answered 500, ${r.burst.other} other answers or none; every 201 stored ` +
      `once and no refused lead stored: ${r.burst.storedAsAnswered ? "yes" : "NO"}.`,
    "",
    "| CPU ms per POST at 16 connections | server process | PostgreSQL | whole machine |",
    "|---|---|---|---|",
    ...Object.entries(r.cpuMsPerRequest[16]).map(
      ([name, c]) => `| ${SERVER_NAMES[name as keyof PostCpu]} | ${c.server} | ${c.database} | ${c.machine} |`,
    ),
    "",
    "| Ratio | Value | Target |",
    "|---|---|---|",
    `| POST service / floor at 16 connections | ${r.ratios.postServiceOverFloorAt16} | |`,
    `| POST service / bare at 16 connections | ${r.ratios.postServiceOverBareAt16} | |`,
    `| POST ceiling of service / floor set by PostgreSQL's CPU per lead | ${r.ratios.postFloorCeilingAt16} | |`,
    `| POST service / floor over that ceiling | ${r.ratios.postServiceOverCeilingAt16} | >= 0.85 |`,
    `| Server CPU per POST, service / floor, at 16 connections | ${r.ratios.postServerCpuOverFloorAt16} | <= 1.4 |`,
    `| Server CPU per POST, floor + statement / floor, at 16 connections | ${r.ratios.postFloorWithStatementServerCpuOverFloorAt16} | |`,
    `| POST three processes through HAProxy + PgBouncer / one direct, at 64 connections | ${r.ratios.postPooledThreeOverOneAt64} | >= 0.8 |`,
    `| Server CPU per POST at 16 connections, rate limit set (never refusing) / none | ` +
      `${r.ratios.postServerCpuRateLimitedOverPlainAt16} | <= 1.1 |`,
    `| Server CPU per POST at 16 connections, metrics on (both exporters) / off | ` +
      `${r.ratios.postServerCpuMetricsOverPlainAt16} | <= 1.05 |`,
    `| Creations/s at 16 at a time, a host's own names / the module's | ${r.ratios.postMappedOverOwnAt16} | >= 0.95 |`,
    `| POST burst created/s / steady created/s | ${r.ratios.burstGoodputOverSteady} | >= 0.8 |`,
    `| POST burst p99 of the created / steady p99 | ${r.ratios.burstAdmittedP99OverSteady} | <= 5 |`,
    `| POST burst answers 500 | ${r.burst.status500} | 0 |`,
    `| POST burst: every 201 stored once, no refused lead stored | ${r.burst.storedAsAnswered ? "yes" : "no"} | yes |`,
    `| List p50 at 1M / at 10k | ${r.ratios.listP50At1mOver10k} | <= 2 |`,
    `| List p50 one source at 1M / at 10k | ${r.ratios.listFilteredP50At1mOver10k} | <= 2 |`,
    `| List p50 at 1M, offset 500000 / first page | ${r.ratios.listDeepOffsetOverFirstPageAt1m} | <= 5 |`,
    `| List p50 at 1M, offset 2147483647 / first page | ${r.ratios.listPastEndOffsetOverFirstPageAt1m} | <= 5 |`,
    `| List p50 at 1M, one source of half the leads, its middle / its first page | ` +
      `${r.ratios.listOneSourceMiddleOverFirstAt1m} | <= 2 |`,
    `| GET /api/leads/sources p50 at ${r.sourcesScale.many.sources.toLocaleString("en")} sources, 304 / 200 | ${r.ratios.sourcesNotModifiedOverListAt100k} | |`,
    ...(r.ratios.importOverPost === null
      ? []
      : [`| Importer rows/s over POST req/s | ${r.ratios.importOverPost} | >= 0.9 |`]),
    ...(["insert", "update", "delete"] as const).map(
      (op) =>
        `| Host ${op.toUpperCase()} of ${r.hostBulk.rows.toLocaleString("en")} referrals, module's triggers / disabled ` +
        `(${r.hostBulk[op].withTriggersMs} / ${r.hostBulk[op].bareMs} ms) | ${r.hostBulk.ratios[BULK_RATIO[op]]} | <= 1.5 |`,
    ),
    `| Server RSS start / end (MB) | ${r.rssMb.start} / ${r.rssMb.end} | end < 250 |`,
    "",
  ];
  return lines.join("\n");
}
