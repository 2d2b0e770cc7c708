import pg from "pg";
import { afterAll, beforeAll, describe, it } from "vitest";
import { expectCrashInvariant, postUnderLoad } from "../helpers/crash-invariant";
import { OwnCluster } from "../helpers/own-cluster";
import { nextServerPid } from "../helpers/process-tree";
import { startServer, type RunningServer } from "../helpers/server";

/**
 * The crash invariant (tests/helpers/crash-invariant.ts) after kill -9 of PostgreSQL,
 * then of the Next server, under POST load. The cluster is this test's own (the shared
 * test cluster is never killed), kept on disk so that it restarts with its data, as
 * after a power cut.
 */
const PHASE_MS = 4_000;

let cluster: OwnCluster;
let server: RunningServer;
let sql: pg.Pool;

beforeAll(async () => {
  cluster = await OwnCluster.create("crash_test");
  server = await startServer(cluster.url);
}, 180_000);

afterAll(async () => {
  await sql?.end();
  await server?.stop();
  await cluster?.remove();
}, 60_000);

describe("kill -9 under POST load", () => {
  it("keeps every acknowledged lead with its customer and one audit entry, stores nothing half, and keeps counts exact", async () => {
    let target = server.baseUrl;
    const load = postUnderLoad(() => target);
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    await wait(PHASE_MS);
    process.kill(cluster.server!.pid, "SIGKILL");
    await wait(1_000);
    await cluster.start();
    await wait(PHASE_MS);

    process.kill(nextServerPid(server.baseUrl), "SIGKILL");
    await server.stop(); // the launcher has exited 1 by itself; a supervisor starts a new one
    server = await startServer(cluster.url);
    target = server.baseUrl;
    await wait(PHASE_MS);
    const sent = await load.stop();

    sql = new pg.Pool({ connectionString: cluster.url, max: 2 });
    const figures = await expectCrashInvariant(sql, load.run, sent);
    console.log(
      `crash under load: ${figures.sent} POSTs sent, ${figures.acknowledged} acknowledged, ${figures.stored} stored (${figures.stored - figures.acknowledged} whose answer was lost)`,
    );
  }, 300_000);
});
