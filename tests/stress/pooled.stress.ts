import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabaseClient, type StatementMode } from "@/lib/db/connect";
import { readMigrations } from "@/lib/db/migrate";
import { readConfiguredSources } from "@/lib/leads/sources/configured";
import { startNextServer, waitUntilReady, type NextServer, type NextShape } from "@/scripts/next-server";
import {
  pgbouncerTracksPreparedStatements,
  pgbouncerVersion,
  POOLER_POOL_SIZE,
  startLoadBalancer,
  startPgBouncer,
  type LoadBalancer,
  type PgBouncer,
} from "@/scripts/pooler";
import { TEST_KEY } from "../helpers/api";
import { expectCrashInvariant, postUnderLoad } from "../helpers/crash-invariant";
import type { TestDatabase } from "../helpers/db";
import { authorised, sendRaw } from "../helpers/hostile";
import { createEmptyDatabase } from "../helpers/host-install";
import { nextServerPid } from "../helpers/process-tree";
import { scaleOutSuite } from "../helpers/scale-out-suite";

/**
 * Three server processes behind HAProxy, on one PostgreSQL through PgBouncer in
 * transaction mode with 8 server connections (scripts/pooler.ts), as
 * docs/host-guide.md ("Connection poolers") tells a host to run them: two `next start`
 * and one standalone `server.js`, each with the preload, started at the same moment on
 * an empty database. Statements are named where PgBouncer tracks them (1.21 and later,
 * max_prepared_statements), unnamed otherwise (Debian 12's 1.18).
 */
const SHAPES: NextShape[] = ["next-start", "next-start", "standalone"];
const STATEMENTS: StatementMode = pgbouncerTracksPreparedStatements() ? "named" : "unnamed";
const PHASE_MS = 4_000;

let db: TestDatabase;
let bouncer: PgBouncer;
let pooledUrl: string;
let servers: NextServer[] = [];
let balancer: LoadBalancer;
const env = () => ({
  DATABASE_URL: pooledUrl,
  DATABASE_STATEMENTS: STATEMENTS,
  LEADS_API_KEY: TEST_KEY,
  LEADS_ACCESS_LOG: "on",
});
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  db = await createEmptyDatabase();
  bouncer = await startPgBouncer(db.url, STATEMENTS === "named" ? { maxPreparedStatements: 200 } : {});
  pooledUrl = bouncer.url(db.url);
  servers = await Promise.all(SHAPES.map((shape) => startNextServer({ shape, preload: true, env: env() })));
  balancer = await startLoadBalancer(servers.map((s) => s.baseUrl));
  await Promise.all(servers.map((s) => waitUntilReady(s.baseUrl)));
  await waitUntilReady(balancer.url);
  console.log(
    `pooled: PgBouncer ${pgbouncerVersion().join(".")}, ${STATEMENTS} statements, ${POOLER_POOL_SIZE} server connections`,
  );
}, 240_000);

afterAll(async () => {
  await balancer?.stop();
  await Promise.all(servers.map((s) => s.group.stop()));
  await bouncer?.stop();
  await db?.sql.end();
}, 60_000);

describe("three processes started at the same moment on an empty database, through PgBouncer", () => {
  it("applied each migration once and created each configured source once, and every process is ready", async () => {
    const { rows } = await db.sql.query<{ migration_name: string; finished: boolean }>(
      `SELECT migration_name, finished_at IS NOT NULL AS finished FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows).toEqual((await readMigrations()).map((m) => ({ migration_name: m.name, finished: true })));
    const { rows: sources } = await db.sql.query<{ name: string }>(
      "SELECT name FROM customers WHERE kind = 'source' ORDER BY name",
    );
    expect(sources.map((s) => s.name)).toEqual(
      readConfiguredSources()
        .map((s) => s.name)
        .sort(),
    );
    for (const server of servers) expect(server.group.output()).not.toContain("start-up preparation failed");
    expect((await fetch(`${balancer.url}/api/health/ready`)).status).toBe(200);
  });

  it("keeps the service's statement timeout on pooled server connections", async () => {
    const client = createDatabaseClient(pooledUrl, 1, STATEMENTS);
    try {
      const [row] = await client.$queryRaw<{ statement_timeout: string }[]>`SHOW statement_timeout`;
      expect(row.statement_timeout).toBe("15s");
    } finally {
      await client.$disconnect();
    }
  });
});

describe("kill -9 of one server process and of PgBouncer under POST load through HAProxy", () => {
  it("keeps every acknowledged lead with its customer and one audit entry, stores nothing half, keeps counts exact, and recovers", async () => {
    const load = postUnderLoad(() => balancer.url);
    await wait(PHASE_MS);

    const killed = servers[0];
    process.kill(nextServerPid(killed.baseUrl), "SIGKILL");
    await killed.group.exited;
    await wait(PHASE_MS);

    await bouncer.kill();
    await wait(1_000);
    await bouncer.restart();
    await wait(PHASE_MS);

    // A supervisor starts the killed process again, at the address HAProxy knows.
    servers[0] = await startNextServer({ shape: SHAPES[0], preload: true, env: env(), port: killed.port });
    await waitUntilReady(servers[0].baseUrl);
    await wait(PHASE_MS);
    const sent = await load.stop();

    const figures = await expectCrashInvariant(db.sql, load.run, sent);
    console.log(
      `pooled crash under load: ${figures.sent} POSTs sent, ${figures.acknowledged} acknowledged, ${figures.stored} stored ` +
        `(${figures.stored - figures.acknowledged} whose answer was lost)`,
    );
    // Every process answers again through the pooler.
    for (const server of servers) {
      const response = await sendRaw(
        authorised("POST", "/api/leads", {
          leadName: "After Crash",
          leadMobileNumber: "012-345 6789",
          referrer: "Facebook Ads",
        }),
        server.baseUrl,
      );
      expect(response.status).toBe(201);
    }
  }, 300_000);
});

// After the crash test, whose invariant (no orphans) holds for the whole database: this suite adds bulk rows of its
// own.
scaleOutSuite(
  `three processes behind HAProxy on PgBouncer (transaction mode, ${POOLER_POOL_SIZE} server connections)`,
  () => ({
    sql: db.sql,
    targets: [balancer.url, balancer.url],
    outputs: () => servers.map((s) => s.group.output()),
  }),
);
