import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TEST_KEY } from "../helpers/api";
import { createTestDatabase, rowCounts, type TestDatabase } from "../helpers/db";
import { authorised, checkEnvelope, distinctive, sendRaw, stackTraceLines } from "../helpers/hostile";
import { hostileCases } from "../helpers/hostile-cases";
import { accountForRows, FuzzLedger, seedWorld } from "../helpers/fuzz-ledger";
import type { World } from "../helpers/oracle";
import { validLead } from "../helpers/lead";

/**
 * Fuzzing the four operations and the aliases in-process (the route handlers Next
 * serves, on a real PostgreSQL copy): thousands of generated hostile requests,
 * each held to the answer the spec gives for what was actually sent, and the
 * database checked afterwards for anything a rejected request left behind.
 * FUZZ_SEED replays a run; FUZZ_RUNS scales it (25 requests per run).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 205);
const BATCH = 25;

let db: TestDatabase;
let world: World;
const run = randomBytes(3).toString("hex");

beforeAll(async () => {
  db = await createTestDatabase();
  await sendRaw(authorised("GET", "/api/leads/sources"));
  world = await seedWorld(db.sql, run);
});
afterAll(() => db.sql.end());

describe("fuzzing every operation in-process", () => {
  it(`answers ${RUNS * BATCH} hostile requests as documented and saves nothing for any rejected one`, async () => {
    const before = await rowCounts(db.sql);
    const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    const logged: string[] = [];
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" "))),
    );
    const ledger = new FuzzLedger(world);
    const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(hostileCases(world, run), { minLength: BATCH, maxLength: BATCH }), async (cases) => {
          // Sent together: concurrent requests must not disturb each other's answers.
          const responses = await Promise.all(cases.map((c) => sendRaw(c.request)));
          cases.forEach((c, i) => ledger.verify(c, responses[i]));
        }),
        { numRuns: RUNS, seed },
      );
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
    console.log(`fuzzed in-process: ${ledger.summary()}`);

    expect(ledger.requests).toBeGreaterThanOrEqual(RUNS * BATCH);
    // Every documented outcome was reached, so the generators reach past each check.
    for (const outcome of [
      "201",
      "200",
      "UNAUTHORIZED",
      "INVALID_CONTENT_TYPE",
      "INVALID_JSON",
      "INVALID_INPUT",
      "INVALID_REFERRER",
      "INVALID_AGENT",
      "METHOD_NOT_ALLOWED",
    ]) {
      expect(ledger.outcomes.get(outcome) ?? 0, outcome).toBeGreaterThan(0);
    }
    expect(await accountForRows(db.sql, before, ledger, world)).toEqual([]);
    // No prototype was polluted by "__proto__" or "constructor" keys.
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Nothing failed unexpectedly, so nothing was logged: no key, no personal data, no stack.
    const output = logged.join("\n");
    expect(output).not.toContain(TEST_KEY);
    expect(distinctive(ledger.personal).filter((value) => output.includes(value))).toEqual([]);
    expect(stackTraceLines(output)).toEqual([]);
  }, 240_000);
});

describe("text the database cannot store as sent (found by the fuzzing above)", () => {
  const lead = validLead({ leadName: "Unicode Lead" });
  const fields: [string, (bad: string) => Record<string, unknown>][] = [
    ["leadName", (bad) => ({ ...lead, leadName: `Ali ${bad}` })],
    ["referrer", (bad) => ({ ...lead, referrer: `New Source ${bad}` })],
    ["referrer.customerId", (bad) => ({ ...lead, referrer: { customerId: `src_${bad}` } })],
    ["leadState", (bad) => ({ ...lead, leadState: bad })],
    ["leadCity", (bad) => ({ ...lead, leadCity: bad })],
    ["leadAddress", (bad) => ({ ...lead, leadAddress: `1 Jalan ${bad}` })],
    ["remark", (bad) => ({ ...lead, remark: bad })],
  ];

  // U+0000: PostgreSQL text cannot hold it (the insert failed: 500). A lone surrogate has no UTF-8
  // form (U+FFFD was saved while the 201 echoed the original). Both are invalid input, like any bad value.
  for (const [what, bad] of [
    ["U+0000", "a\u0000b"],
    ["a lone high surrogate", "a\ud800b"],
    ["a lone low surrogate", "\udfffab"],
  ]) {
    it(`answers 400 INVALID_INPUT at the field for ${what} in any text field, and saves nothing`, async () => {
      const before = await rowCounts(db.sql);
      for (const [path, body] of fields) {
        const response = await sendRaw(authorised("POST", "/api/leads", body(bad)));
        expect({ path, status: response.status, body: checkEnvelope(response) }).toEqual({
          path,
          status: 400,
          body: {
            error: expect.any(String),
            code: "INVALID_INPUT",
            issues: [{ path, message: expect.any(String) }],
            requestId: expect.any(String),
          },
        });
      }
      expect(await rowCounts(db.sql)).toEqual(before);
    });
  }

  it("stores well-formed text exactly as it answers it: emoji, combining marks, controls, bidi marks", async () => {
    const text = "Siti \ud83d\ude00 e\u0301 \u0001\u001f \u202eRTL\u202c \u200b \uffff \u{10ffff}";
    const response = await sendRaw(
      authorised("POST", "/api/leads", { ...lead, leadName: text, referrer: `Src ${text}`, remark: text }),
    );
    expect(response.status).toBe(201);
    const { lead: created } = checkEnvelope(response);
    expect(created.leadName).toBe(text);
    const { rows } = await db.sql.query(
      `SELECT r.lead_name, r.remark, c.name AS referrer FROM referrals r JOIN customers c ON c.id = r.referrer_customer_id WHERE r.id = $1`,
      [created.referralId],
    );
    expect(rows[0]).toEqual({ lead_name: text, remark: text, referrer: `Src ${text}` });
    expect(created.referrer.name).toBe(`Src ${text}`);
  });
});
