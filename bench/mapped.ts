// What a host's own names cost per POST: the route's creation work with the mapped statements beside the module's own
// names, one child process each on a fresh database of the run's cluster (bench/README.md, "Method"). Part of
// `npm run bench`; standalone, on its own embedded PostgreSQL:
//   npx tsx bench/mapped.ts
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { HOST_NAMES, type HostNames } from "@/lib/db/host-names";
import { quoted } from "@/lib/db/layout";
import { migrate } from "@/lib/db/migrate";
import { MAPPED_HOST, MAPPED_HOST_TABLES } from "@/tests/helpers/mapped-host";
import { migrateMappedHost } from "@/tests/helpers/mapped-host-migrations";
import { type CpuMs, withCpu } from "./cpu";
import { seedSourcesAndUsers, withBenchDatabase } from "./data";
import { round2, type Load } from "./load";
import { medianRun, turnOf, WARM_SECONDS, type Measured } from "./post";

export interface MappedFigures {
  connections: number;
  seconds: number;
  rounds: number;
  /** Creations per second, the median of the rounds: own names, then the mapped host's. */
  ownRps: number;
  mappedRps: number;
  ownP50Ms: number;
  mappedP50Ms: number;
  ownP99Ms: number;
  mappedP99Ms: number;
  /** CPU ms per creation (`server`: the creating process), medians of the rounds. */
  ownCpuMs: CpuMs;
  mappedCpuMs: CpuMs;
  /** What the mapped statements add per POST: CPU ms of the creating process and of PostgreSQL. */
  addedCpuMsPerPost: { process: number; database: number };
  /** Creations the creation budget refused over the measured rounds (the route's 429), not counted as created. */
  refused: { own: number; mapped: number };
}

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_POST_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_POST_ROUNDS ?? 3);
const ROOT = path.resolve(import.meta.dirname, "..");
/** What starts each answer line of bench/mapped-creation.ts. */
const ANSWER = "mapped-creation: ";

type Variant = "own" | "mapped";
const VARIANTS: Record<Variant, { database: string; names: HostNames }> = {
  own: { database: "bench_own_names", names: HOST_NAMES },
  mapped: { database: "bench_mapped_host", names: MAPPED_HOST },
};

function databaseUrl(clusterUrl: string, database: string): string {
  const url = new URL(clusterUrl);
  url.pathname = `/${database}`;
  return url.href;
}

/** A fresh database per variant: migrated and seeded in its own names, the mapped one on the host's tables. */
async function createDatabase(clusterUrl: string, variant: Variant): Promise<void> {
  const { database, names } = VARIANTS[variant];
  const admin = new pg.Client({ connectionString: clusterUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${quoted(database)}`).finally(() => admin.end());
  const url = databaseUrl(clusterUrl, database);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    if (variant === "own") await migrate(url);
    else {
      await pool.query(MAPPED_HOST_TABLES);
      await migrateMappedHost({ url }, MAPPED_HOST);
    }
    await seedSourcesAndUsers(pool, names);
  } finally {
    await pool.end();
  }
}

async function dropDatabases(clusterUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: clusterUrl });
  await admin.connect();
  try {
    for (const { database } of Object.values(VARIANTS))
      await admin.query(`DROP DATABASE IF EXISTS ${quoted(database)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * A tsconfig whose `paths` send `@/lib/db/host-names.json` to the mapped host's names (written from MAPPED_HOST),
 * ahead of `@/*`, for tsx in the mapped child (`tsx --tsconfig`).
 */
async function mappedTsconfig(dir: string): Promise<string> {
  const names = path.join(dir, "host-names.json");
  await writeFile(names, JSON.stringify(MAPPED_HOST, null, 2));
  const tsconfig = path.join(dir, "tsconfig.json");
  const paths = { "@/lib/db/host-names.json": [names], "@/*": [path.join(ROOT, "*")] };
  await writeFile(tsconfig, JSON.stringify({ extends: path.join(ROOT, "tsconfig.json"), compilerOptions: { paths } }));
  return tsconfig;
}

type Run = Load & { refused: number };

interface Child {
  pid: number;
  run(seconds: number): Promise<Run>;
  stop(): Promise<void>;
}

/** bench/mapped-creation.ts under tsx in a process group of its own, once it has read its names and is connected. */
async function startChild(variant: Variant, clusterUrl: string, tsconfig?: string): Promise<Child> {
  const env = { ...process.env, DATABASE_URL: databaseUrl(clusterUrl, VARIANTS[variant].database) };
  const args = [...(tsconfig ? ["--tsconfig", tsconfig] : []), "bench/mapped-creation.ts"];
  const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), args, {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const answers: string[] = [];
  let waiting: (() => void) | undefined;
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (!line.startsWith(ANSWER)) return void console.log(line);
    answers.push(line.slice(ANSWER.length));
    waiting?.();
  });
  const answer = async <T>(): Promise<T> => {
    while (!answers.length) {
      const ended = exited.then(() => "ended" as const);
      if ((await Promise.race([ended, new Promise<void>((resolve) => (waiting = resolve))])) === "ended")
        throw new Error(`the ${variant} creation process ended`);
    }
    return JSON.parse(answers.shift()!) as T;
  };
  const stop = async () => {
    child.stdin.end();
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGTERM"), 10_000);
    await exited.finally(() => clearTimeout(timer));
  };
  const { customerTable } = await answer<{ customerTable: string }>().catch(async (error) => {
    await stop();
    throw error;
  });
  if (customerTable !== VARIANTS[variant].names.Customer.table) {
    await stop();
    throw new Error(`the ${variant} creation process reads the names of table ${customerTable}`);
  }
  const run = (seconds: number) => {
    child.stdin.write(`${JSON.stringify({ seconds, connections: CONNECTIONS })}\n`);
    return answer<Run>();
  };
  return { pid: child.pid!, run, stop };
}

/** Every creation a child answered is stored, once, in its variant's referral table. */
async function checkStored(clusterUrl: string, variant: Variant, created: number): Promise<void> {
  const { database, names } = VARIANTS[variant];
  const client = new pg.Client({ connectionString: databaseUrl(clusterUrl, database) });
  await client.connect();
  const table = quoted(names.Referral.table);
  const { rows } = await client
    .query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)
    .finally(() => client.end());
  if (rows[0].n !== created) throw new Error(`${variant}: ${created} leads created, ${rows[0].n} stored`);
}

/**
 * The two variants' children warmed, then taken in turn ROUNDS times, the first of a round alternating (turnOf).
 * Medians, as bench/post.ts takes them.
 */
export async function measureMapped(clusterUrl: string, databaseDir: string): Promise<MappedFigures> {
  const dir = await mkdtemp(path.join(tmpdir(), "lead-intake-bench-mapped-"));
  const children: Child[] = [];
  try {
    await createDatabase(clusterUrl, "own");
    await createDatabase(clusterUrl, "mapped");
    children.push(await startChild("own", clusterUrl));
    children.push(await startChild("mapped", clusterUrl, await mappedTsconfig(dir)));
    const created: number[] = [];
    for (const child of children) created.push((await child.run(WARM_SECONDS)).requests);
    const runs: Measured[][] = children.map(() => []);
    const refused = children.map(() => 0);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, child] of turnOf([...children.entries()], round)) {
        const measured = await withCpu(child, databaseDir, async () => {
          const run = await child.run(SECONDS);
          refused[i] += run.refused;
          return run;
        });
        runs[i].push(measured);
        created[i] += measured.requests;
      }
    }
    await checkStored(clusterUrl, "own", created[0]);
    await checkStored(clusterUrl, "mapped", created[1]);
    return { ...figuresOf(medianRun(runs[0]), medianRun(runs[1])), refused: { own: refused[0], mapped: refused[1] } };
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await dropDatabases(clusterUrl);
    await rm(dir, { recursive: true, force: true });
  }
}

function figuresOf(own: Measured, mapped: Measured): Omit<MappedFigures, "refused"> {
  return {
    connections: CONNECTIONS,
    seconds: SECONDS,
    rounds: ROUNDS,
    ownRps: own.rps,
    mappedRps: mapped.rps,
    ownP50Ms: own.p50,
    mappedP50Ms: mapped.p50,
    ownP99Ms: own.p99,
    mappedP99Ms: mapped.p99,
    ownCpuMs: own.cpuMs,
    mappedCpuMs: mapped.cpuMs,
    addedCpuMsPerPost: {
      process: round2(mapped.cpuMs.server - own.cpuMs.server),
      database: round2(mapped.cpuMs.database - own.cpuMs.database),
    },
  };
}

/** postMappedOverOwnAt16 of bench/results/latest.json: mapped creations per second over own names'. */
export function mappedRatios(figures: MappedFigures): Record<string, number> {
  return { postMappedOverOwnAt16: round2(figures.mappedRps / figures.ownRps) };
}

// Alone: its own embedded PostgreSQL; the databases it measures on are made in that cluster.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await withBenchDatabase(measureMapped);
  console.log(JSON.stringify({ mapped: figures, ratios: mappedRatios(figures) }, null, 2));
}
