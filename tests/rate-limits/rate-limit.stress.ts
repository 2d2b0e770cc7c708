import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, TEST_KEY, type ApiResponse } from "../helpers/api";
import { startPooledRig, type PooledRig } from "../helpers/pooled-rig";
import { validLead } from "../helpers/lead";

/**
 * The creation limit shared by three server processes behind HAProxy on PgBouncer (transaction mode): of 5 x L
 * attempts with one key sent within a minute, at most 1.05 x L are 201 and every other one is 429 RATE_LIMITED with
 * Retry-After and the RateLimit headers; the database holds exactly the 201s. A second key, sending 2 x L in the same
 * minute, keeps its own budget.
 */
const L = Number(process.env.STRESS_RATE_LIMIT ?? 120);
const SEND_WITHIN_MS = 45_000;
const CONCURRENT = 16;
const SECOND_KEY = "second-key-rate-limit-0123456789-0123456789";
let rig: PooledRig;

beforeAll(async () => {
  rig = await startPooledRig({
    LEADS_API_KEY: TEST_KEY,
    LEADS_API_KEY_PREVIOUS: SECOND_KEY,
    LEADS_RATE_LIMIT_CREATE: `${L}/min`,
    LEADS_ACCESS_LOG: "off",
  });
}, 240_000);

afterAll(async () => {
  await rig?.stop();
}, 60_000);

interface Attempt {
  key: string;
  tag: string;
}

describe(`a creation limit of ${L} per minute per key across three processes behind HAProxy on PgBouncer`, () => {
  it(`lets at most 1.05 x L of 5 x L attempts in a minute create a lead, refuses the rest 429, and a second key keeps its own budget`, async () => {
    const attempts: Attempt[] = [];
    for (let i = 0; i < 5 * L; i++) {
      attempts.push({ key: TEST_KEY, tag: "First" });
      if (i % 5 < 2) attempts.push({ key: SECOND_KEY, tag: "Second" });
    }
    const answers: { attempt: Attempt; res: ApiResponse }[] = [];
    const started = Date.now();
    let next = 0;
    const worker = async () => {
      while (next < attempts.length) {
        const index = next++;
        const due = started + (index * SEND_WITHIN_MS) / attempts.length;
        if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
        const attempt = attempts[index];
        const body = validLead({ leadName: `${attempt.tag} Limited ${index}` });
        answers.push({
          attempt,
          res: await call("POST", "/api/leads", { baseUrl: rig.balancer.url, body, key: attempt.key }),
        });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT }, worker));
    const elapsed = Date.now() - started;
    expect(elapsed, "every attempt was answered within the minute").toBeLessThan(60_000);

    for (const tag of ["First", "Second"]) {
      const mine = answers.filter((a) => a.attempt.tag === tag);
      const created = mine.filter((a) => a.res.status === 201);
      const refused = mine.filter((a) => a.res.status !== 201);
      console.log(
        `rate limit ${L}/min, ${tag.toLowerCase()} key: ${mine.length} attempts in ${elapsed} ms, ${created.length} created, ${refused.length} refused`,
      );
      expect(created.length).toBeGreaterThan(0);
      expect(created.length).toBeLessThanOrEqual(1.05 * L);
      for (const { res } of refused) {
        expect(res.status, res.text).toBe(429);
        expect(res.body.code).toBe("RATE_LIMITED");
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        expect(res.headers.get("ratelimit-policy")).toBe(`"create";q=${L};w=60`);
        expect(res.headers.get("ratelimit")).toMatch(/^"create";r=0;t=[0-9]+$/);
      }
      const { rows } = await rig.db.sql.query<{ count: string }>(
        "SELECT count(*) FROM referrals WHERE lead_name LIKE $1",
        [`${tag} Limited %`],
      );
      expect(Number(rows[0].count)).toBe(created.length);
    }
    // The second key sent 2 x L: its own budget, not what the first left, decided its answers.
    expect(answers.filter((a) => a.attempt.tag === "Second" && a.res.status === 201).length).toBeGreaterThanOrEqual(
      L * 0.95,
    );
  }, 180_000);
});
