import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabaseClient } from "@/lib/db/connect";
import { readMigrations } from "@/lib/db/migrate";
import { readConfiguredSources } from "@/lib/leads/sources/configured";
import { startNextServer, waitUntilReady } from "@/scripts/next-server";
import { pgbouncerVersion, POOLER_POOL_SIZE } from "@/scripts/pooler";
import { TEST_KEY } from "../helpers/api";
import { expectCrashInvariant, postUnderLoad } from "../helpers/crash-invariant";
import { authorised, sendRaw } from "../helpers/hostile";
import { RIG_SHAPES, RIG_STATEMENTS, startPooledRig, type PooledRig } from "../helpers/pooled-rig";
import { nextServerPid } from "../helpers/process-tree";
import { scaleOutSuite } from "../helpers/scale-out-suite";
import { validLead } from "../helpers/lead";

/** The pooled rig (tests/helpers/pooled-rig.ts): three processes started at the same moment on an empty database. */
const PHASE_MS = 4_000;

let rig: PooledRig;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  rig = await startPooledRig({ LEADS_API_KEY: TEST_KEY, LEADS_ACCESS_LOG: "on" });
  console.log(
    `pooled: PgBouncer ${pgbouncerVersion().join(".")}, ${RIG_STATEMENTS} statements, ${POOLER_POOL_SIZE} server connections`,
  );
}, 240_000);

afterAll(async () => {
  await rig?.stop();
}, 60_000);

describe("three processes started at the same moment on an empty database, through PgBouncer", () => {
  it("applied each migration once and created each configured source once, and every process is ready", async () => {
    const { rows } = await rig.db.sql.query<{ migration_name: string; finished: boolean }>(
      `SELECT migration_name, finished_at IS NOT NULL AS finished FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows).toEqual((await readMigrations()).map((m) => ({ migration_name: m.name, finished: true })));
    const { rows: sources } = await rig.db.sql.query<{ name: string }>(
      "SELECT name FROM customers WHERE kind = 'source' ORDER BY name",
    );
    expect(sources.map((s) => s.name)).toEqual(
      readConfiguredSources()
        .map((s) => s.name)
        .sort(),
    );
    for (const server of rig.servers) expect(server.group.output()).not.toContain("start-up preparation failed");
    expect((await fetch(`${rig.balancer.url}/api/health/ready`)).status).toBe(200);
  });

  it("keeps the service's statement timeout on pooled server connections", async () => {
    const client = createDatabaseClient(rig.pooledUrl, 1, RIG_STATEMENTS);
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
    const load = postUnderLoad(() => rig.balancer.url);
    await wait(PHASE_MS);

    const killed = rig.servers[0];
    process.kill(nextServerPid(killed.baseUrl), "SIGKILL");
    await killed.group.exited;
    await wait(PHASE_MS);

    await rig.bouncer.kill();
    await wait(1_000);
    await rig.bouncer.restart();
    await wait(PHASE_MS);

    // A supervisor starts the killed process again, at the address HAProxy knows.
    rig.servers[0] = await startNextServer({
      shape: RIG_SHAPES[0],
      preload: true,
      env: rig.env,
      port: killed.port,
    });
    await waitUntilReady(rig.servers[0].baseUrl);
    await wait(PHASE_MS);
    const sent = await load.stop();

    const figures = await expectCrashInvariant(rig.db.sql, load.run, sent);
    console.log(
      `pooled crash under load: ${figures.sent} POSTs sent, ${figures.acknowledged} acknowledged, ${figures.stored} stored ` +
        `(${figures.stored - figures.acknowledged} whose answer was lost)`,
    );
    // Every process answers again through the pooler.
    for (const server of rig.servers) {
      const response = await sendRaw(
        authorised("POST", "/api/leads", validLead({ leadName: "After Crash" })),
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
    sql: rig.db.sql,
    targets: [rig.balancer.url, rig.balancer.url],
    outputs: () => rig.servers.map((s) => s.group.output()),
  }),
);
