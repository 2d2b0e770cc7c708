import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES, MAX_ISSUES } from "@/lib/api/errors";
import { rowCounts } from "../helpers/db";
import { authorised, checkEnvelope, sendRaw } from "../helpers/hostile";
import { serverForThisFile } from "../helpers/server";
import { validLead } from "../helpers/lead";

/**
 * Decision 14, over HTTP against the production server: bodies built to
 * inflate the error answer, which could otherwise exhaust the heap and take the
 * service down. Each gets a bounded 400 and the server keeps serving.
 */
const running = serverForThisFile();

const ANSWER_LIMIT = 64 * 1024;
const lead = validLead();
const list = (n: number, item: string) => Array(n).fill(item).join(",");
const nested = (depth: number, inner: string) => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;
const withProperties = (n: number, value: string) =>
  `{${JSON.stringify(lead).slice(1, -1)},${Array.from({ length: n }, (_, i) => `"${i.toString(36)}":${value}`).join(",")}}`;
const longKey = "k".repeat(400_000);

const ATTACKS: [string, string][] = [
  ['arrays 37,000 deep holding 8,200 "\\u0000" leaves', nested(37_000, list(8_200, '"\\u0000"'))],
  ["objects 100,000 deep", `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`],
  ["105,000 unknown properties", withProperties(105_000, "0")],
  ['60,000 unknown properties each "\\u0000"', withProperties(60_000, '"\\u0000"')],
  ['110,000 "\\u0000" strings 30 arrays deep', nested(30, list(110_000, '"\\ud800"'))],
  ['a 400,000-character unknown property holding 60,000 "\\u0000"', `{"${longKey}":[${list(60_000, '"\\u0000"')}]}`],
  ["a 400,000-character unknown property name", JSON.stringify({ ...lead, [longKey]: 1, [`${longKey}x`]: 2 })],
];

describe("bodies that inflate the error answer", () => {
  for (const [what, body] of ATTACKS) {
    it(`answers ${what} with a 400 under 64 KB, saves nothing, and keeps serving`, async () => {
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
      const before = await rowCounts(running.db.sql);
      const response = await sendRaw(authorised("POST", "/api/leads", body), running.server.baseUrl);
      expect(response.status).toBe(400);
      expect(Buffer.byteLength(response.text)).toBeLessThan(ANSWER_LIMIT);
      const answer = checkEnvelope(response);
      expect(answer.code).toBe("INVALID_INPUT");
      expect(answer.issues.length).toBeLessThanOrEqual(MAX_ISSUES + 1);
      expect(await rowCounts(running.db.sql)).toEqual(before);
      const next = await sendRaw(authorised("GET", "/api/leads/sources"), running.server.baseUrl);
      expect(next.status).toBe(200);
    });
  }

  it("survives all of them sent at once, then still creates a lead", async () => {
    const answers = await Promise.all(
      ATTACKS.flatMap(([, body]) => [body, body]).map((body) =>
        sendRaw(authorised("POST", "/api/leads", body), running.server.baseUrl),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 400));
    const created = await sendRaw(authorised("POST", "/api/leads", lead), running.server.baseUrl);
    expect(created.status).toBe(201);
    // The server printed nothing about them: none of them was a failure.
    expect(running.server.output()).not.toMatch(/heap|request failed/i);
  });
});
