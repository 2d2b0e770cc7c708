import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { scaleOutSuite } from "../helpers/scale-out-suite";
import { startServer, type RunningServer } from "../helpers/server";

/**
 * Two production server processes on one database, each with its own pool, as a host runs them behind a load balancer.
 */
let db: TestDatabase;
let servers: RunningServer[];

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  servers = await Promise.all([startServer(db.url), startServer(db.url)]);
}, 180_000);

afterAll(async () => {
  await Promise.all((servers ?? []).map((s) => s.stop()));
  await db?.sql.end();
});

scaleOutSuite("two server processes on one database", () => ({
  sql: db.sql,
  targets: [servers[0].baseUrl, servers[1].baseUrl],
  outputs: () => servers.map((s) => s.output()),
}));
