import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_POOL_SIZE } from "@/lib/db/connect";
import { creationConnections, CreationBudget } from "@/lib/db/creation-budget";
import { call } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { validLead } from "../helpers/lead";
import { startServer, type RunningServer } from "../helpers/server";

/**
 * A server just started admits a burst as large as lead creation's capacity, its connections and their line, and
 * refuses only beyond it (docs/decisions.md, "Creation sheds load"): the preload counts a creation on its way to the
 * route until the route takes it, not also while it runs or waits in the budget. Two servers on one database take
 * their bursts at once, as behind a load balancer: the busier the machine, the later Next routes a burst's last
 * requests, after its first ones reached the budget.
 */
const CAPACITY = new CreationBudget(creationConnections(DEFAULT_POOL_SIZE)).capacity;

let db: TestDatabase;
let servers: RunningServer[] = [];

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  servers = await Promise.all([startServer(db.url), startServer(db.url)]);
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await db?.sql.end();
}, 60_000);

describe("a fresh server's first burst of creations", () => {
  it("admits as many concurrent creations as its capacity, each stored once", async () => {
    // A read loads the route, which opens the preload's gate, as for every creation after a server's first.
    for (const { baseUrl } of servers) expect((await call("GET", "/api/leads?limit=1", { baseUrl })).status).toBe(200);
    const answers = await Promise.all(
      servers.flatMap(({ baseUrl }, s) =>
        Array.from({ length: CAPACITY }, (_, i) =>
          call("POST", "/api/leads", { baseUrl, body: validLead({ leadName: `Fresh Burst ${s}-${i}` }) }),
        ),
      ),
    );
    expect(answers.map((answer) => answer.body.code ?? answer.status)).toEqual(answers.map(() => 201));
    const ids = answers.map((answer) => answer.body.lead.referralId as number).sort((a, b) => a - b);
    const { rows } = await db.sql.query<{ id: number }>(
      `SELECT id FROM referrals WHERE lead_name LIKE 'Fresh Burst %' ORDER BY id`,
    );
    expect(rows.map((row) => row.id)).toEqual(ids);
  });
});
