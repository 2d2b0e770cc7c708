import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { startServer, type RunningServer } from "../helpers/server";

/**
 * Issue 12 point 3: the host changes a column's type under a warm pool. The server's
 * named prepared statements then answer 0A000 "cached plan must not change result
 * type" on every warm connection; it used to do so forever (GET /api/leads 100% 500).
 * Now the statement names move to a new generation on the first 0A000: outside a
 * transaction the statement is retried at once, inside one the request fails once.
 */
let db: TestDatabase;
let server: RunningServer;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  server = await startServer(db.url);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await db.sql.end();
});

const get = (path: string) => fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });

let counter = 0;
const post = () =>
  fetch(`${server.baseUrl}/api/leads`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ leadName: `Ddl Lead ${++counter}`, leadMobileNumber: `0145550${String(counter).padStart(3, "0")}`, referrer: "DDL Expo" }),
  });

/** Many requests at once, so that every pooled connection has prepared the statements. */
async function warm(): Promise<void> {
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? post() : get(i % 3 === 1 ? "/api/leads?limit=5" : "/api/leads/sources"))),
  );
  expect(answers.map((a) => a.status).filter((s) => s >= 500)).toEqual([]);
}

async function statuses(path: string, count: number): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < count; i++) result.push((await get(path)).status);
  return result;
}

describe("host DDL under a warm pool", () => {
  it("a column type change on referrals costs the listing at most one failed request, then it serves again", async () => {
    await warm();
    await db.sql.query("ALTER TABLE referrals ALTER COLUMN remark TYPE varchar(600)");
    const answers = await statuses("/api/leads?limit=5", 20);
    expect(answers.filter((s) => s === 500).length, answers.join()).toBeLessThanOrEqual(1);
    expect(answers.slice(1)).toEqual(Array(19).fill(200));
    expect((await post()).status).toBe(201);
    const failures = server.output().split("\n").filter((line) => line.includes('"msg":"request failed"'));
    expect(failures.every((line) => line.includes('"kind":"plan-changed"')), failures.join("\n")).toBe(true);
  });

  it("a column type change on customers is retried at once outside a transaction: no failed request", async () => {
    await warm();
    const before = server.output().split("\n").filter((line) => line.includes('"msg":"request failed"')).length;
    await db.sql.query("ALTER TABLE customers ALTER COLUMN name TYPE varchar(500)");
    expect(await statuses("/api/leads/sources", 20)).toEqual(Array(20).fill(200));
    expect(server.output().split("\n").filter((line) => line.includes('"msg":"request failed"')).length).toBe(before);
  });
});
