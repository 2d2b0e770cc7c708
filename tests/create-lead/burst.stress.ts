import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LONGEST_RETRY_AFTER_S } from "@/lib/db/creation-budget";
import { call, type ApiResponse } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { validLead } from "../helpers/lead";
import { startServer, type RunningServer } from "../helpers/server";

/**
 * A burst against a small pool (docs/decisions.md, "Creation sheds load"): waves of CONCURRENT POSTs at once to one
 * production server with a pool of 4 (two connections for creation). No answer is a 500: each is a 201 or a definite
 * 429 CREATION_BUSY with Retry-After, every lead answered 201 is stored exactly once and no refused one at all.
 */
const CONCURRENT = Number(process.env.STRESS_BURST ?? 600);
const WAVES = 3;
/** Past Next's 5 s keep-alive: no POST of the next wave goes on a socket the server is closing as it is sent. */
const BETWEEN_WAVES_MS = 6_000;

let db: TestDatabase;
let server: RunningServer;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  server = await startServer(db.url, { DATABASE_POOL_SIZE: "4", LEADS_ACCESS_LOG: "off" });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await db?.sql.end();
}, 60_000);

describe(`${WAVES} waves of ${CONCURRENT} concurrent POSTs against a pool of 4`, () => {
  it("answers each 201 or 429 CREATION_BUSY with Retry-After, never 500, storing exactly the 201s", async () => {
    const answers: { name: string; res: ApiResponse }[] = [];
    for (let wave = 0; wave < WAVES; wave++) {
      if (wave > 0) await new Promise((resolve) => setTimeout(resolve, BETWEEN_WAVES_MS));
      const names = Array.from({ length: CONCURRENT }, (_, i) => `Burst Lead ${wave}-${i}`);
      // call() checks every answer against the OpenAPI document.
      const sent = names.map(async (name) => ({
        name,
        res: await call("POST", "/api/leads", { baseUrl: server.baseUrl, body: validLead({ leadName: name }) }),
      }));
      answers.push(...(await Promise.all(sent)));
    }
    const created = answers.filter((a) => a.res.status === 201);
    const refused = answers.filter((a) => a.res.status === 429 && a.res.body.code === "CREATION_BUSY");
    const other = answers.filter((a) => !created.includes(a) && !refused.includes(a));
    const logged = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"level":"error"'));
    expect(
      other.map((a) => `${a.res.status} ${a.res.text}`),
      logged.join("\n"),
    ).toEqual([]);
    // At least the error table's second, longer while more callers wait, never past the keep-alive.
    const waits = new Set(refused.map((a) => a.res.headers.get("retry-after")));
    const allowed = Array.from({ length: LONGEST_RETRY_AFTER_S }, (_, i) => String(i + 1));
    expect([...waits].filter((wait) => !allowed.includes(wait!))).toEqual([]);
    // Both happened: the server shed part of each burst and kept creating.
    expect(created.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);

    const { rows } = await db.sql.query<{ name: string; n: number }>(
      `SELECT lead_name AS name, count(*)::int AS n FROM referrals WHERE lead_name LIKE 'Burst Lead %' GROUP BY 1`,
    );
    const stored = new Map(rows.map((row) => [row.name, row.n]));
    expect(created.filter((a) => stored.get(a.name) !== 1).map((a) => a.name)).toEqual([]);
    expect(refused.filter((a) => stored.has(a.name)).map((a) => a.name)).toEqual([]);
    expect(rows.length).toBe(created.length);
    console.log(`${answers.length} POSTs: ${created.length} created, ${refused.length} refused CREATION_BUSY`);
  });
});
