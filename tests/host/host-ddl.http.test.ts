import { describe, expect, it } from "vitest";
import { TEST_KEY } from "../helpers/api";
import { serverForThisFile } from "../helpers/server";

/**
 * The host changes a column's type under a warm pool. The server's
 * named prepared statements then answer 0A000 "cached plan must not change result
 * type" on every warm connection until the names change: the statement names move to
 * a new generation on the first 0A000: outside a
 * transaction the statement is retried at once, inside one the request fails once.
 */
const running = serverForThisFile();

const get = (path: string) =>
  fetch(`${running.server.baseUrl}${path}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });

let counter = 0;
const post = () =>
  fetch(`${running.server.baseUrl}/api/leads`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({
      leadName: `Ddl Lead ${++counter}`,
      leadMobileNumber: `0145550${String(counter).padStart(3, "0")}`,
      referrer: "DDL Expo",
    }),
  });

/**
 * Rounds of concurrent requests: more than the pool has connections, so every connection serves (and prepares) them.
 */
async function rounds(path: string, count: number): Promise<number[][]> {
  const result: number[][] = [];
  for (let i = 0; i < count; i++)
    result.push((await Promise.all(Array.from({ length: 30 }, () => get(path)))).map((a) => a.status));
  return result;
}

const failureLines = () =>
  running.server
    .output()
    .split("\n")
    .filter((line) => line.includes('"msg":"request failed"'));

describe("host DDL under a warm pool", () => {
  it("a column type change on referrals fails only listings already running, then every connection serves again", async () => {
    expect((await post()).status).toBe(201);
    expect((await rounds("/api/leads?limit=5", 2)).flat().filter((s) => s !== 200)).toEqual([]);
    await running.db.sql.query("ALTER TABLE referrals ALTER COLUMN remark TYPE varchar(600)");
    // The first round's listings are in their transactions when the first 0A000 arrives: some fail once.
    const [first, ...later] = await rounds("/api/leads?limit=5", 4);
    expect(
      first.every((s) => s === 200 || s === 500),
      first.join(),
    ).toBe(true);
    expect(later.flat().filter((s) => s !== 200)).toEqual([]);
    expect((await post()).status).toBe(201);
    const failures = failureLines();
    expect(failures.length).toBe(first.filter((s) => s === 500).length);
    expect(
      failures.every((line) => line.includes('"kind":"plan-changed"')),
      failures.join("\n"),
    ).toBe(true);
  });

  it("a column type change on customers is retried at once outside a transaction: no failed request", async () => {
    expect((await rounds("/api/leads/sources", 2)).flat().filter((s) => s !== 200)).toEqual([]);
    const before = failureLines().length;
    await running.db.sql.query("ALTER TABLE customers ALTER COLUMN name TYPE varchar(500)");
    expect((await rounds("/api/leads/sources", 3)).flat().filter((s) => s !== 200)).toEqual([]);
    expect(failureLines().length).toBe(before);
  });
});
