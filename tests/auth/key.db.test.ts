import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { MIN_KEY_LENGTH } from "@/lib/api/api-key.mjs";
import { TEST_KEY } from "../helpers/api";
import { createTestDatabase, rowCounts, type TestDatabase } from "../helpers/db";
import { authorised, checkEnvelope, OPERATIONS, sendRaw, type RawRequest } from "../helpers/hostile";
import { validLead } from "../helpers/lead";

/**
 * The key, attacked in-process on every operation and alias: not configured
 * (503 before anything else), wrong in every near-miss way (401), in the URL or
 * another header (401). Nothing is saved by any of these requests.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterEach(() => {
  process.env.LEADS_API_KEY = TEST_KEY;
  delete process.env.LEADS_API_KEY_PREVIOUS;
});

const lead = validLead({ leadName: "Key Test Lead", referrer: "Key Test Source" });

/** Every operation and alias, with the right key, no key, a wrong key, a wrong content type and a bad body. */
function requestsFor(method: string, path: string): RawRequest[] {
  const body = method === "POST" ? lead : undefined;
  const right = authorised(method, path, body);
  const requests = [
    right,
    { ...right, headers: right.headers.slice(1) },
    authorised(method, path, body, "wrong-key"),
    authorised(method, `${path}?limit=abc&unknown=1`, body),
  ];
  if (method === "POST") {
    requests.push({ ...right, headers: [right.headers[0], ["content-type", "text/plain"]] });
    requests.push({ ...right, body: "{not json" }, { ...right, body: JSON.stringify({ introducer: "x" }) });
  }
  return requests;
}

async function answer(request: RawRequest): Promise<{ status: number; code?: string }> {
  const response = await sendRaw(request);
  const body = checkEnvelope(response, { allow5xx: true });
  return { status: response.status, code: body.code };
}

describe("the API key", () => {
  for (const unset of ["removed", "empty", "too short", "too short as the previous one"]) {
    it(`answers 503 API_NOT_CONFIGURED on every operation and alias, whatever is sent, when the key is ${unset}`, async () => {
      const before = await rowCounts(db.sql);
      if (unset === "removed") delete process.env.LEADS_API_KEY;
      else if (unset === "empty") process.env.LEADS_API_KEY = "";
      else if (unset === "too short") process.env.LEADS_API_KEY = TEST_KEY.slice(0, MIN_KEY_LENGTH - 1);
      else process.env.LEADS_API_KEY_PREVIOUS = TEST_KEY.slice(1, MIN_KEY_LENGTH);
      for (const [method, path] of OPERATIONS) {
        for (const request of requestsFor(method, path)) {
          expect({ method, path: request.path, ...(await answer(request)) }).toEqual({
            method,
            path: request.path,
            status: 503,
            code: "API_NOT_CONFIGURED",
          });
        }
      }
      const short = TEST_KEY.slice(0, MIN_KEY_LENGTH - 1);
      // Even presented exactly, a short configured key opens nothing.
      expect(await answer(authorised("GET", "/api/leads/sources", undefined, short))).toEqual({
        status: 503,
        code: "API_NOT_CONFIGURED",
      });
      // An empty presented key does not match an empty configured one either.
      expect(
        await answer({ method: "GET", path: "/api/leads/sources", headers: [["authorization", "Bearer "]] }),
      ).toEqual({
        status: 503,
        code: "API_NOT_CONFIGURED",
      });
      expect(await rowCounts(db.sql)).toEqual(before);
    });
  }

  it("answers 401 to keys that differ only in the last character, in length, in case, by encoding, or are empty", async () => {
    const last = TEST_KEY.at(-1)!;
    const wrong = [
      `${TEST_KEY.slice(0, -1)}${last === "9" ? "8" : "9"}`,
      `${TEST_KEY.slice(0, -1)}${String.fromCharCode(last.charCodeAt(0) + 1)}`,
      TEST_KEY.slice(0, -1),
      TEST_KEY.slice(0, 1),
      `${TEST_KEY}9`,
      TEST_KEY.repeat(2),
      TEST_KEY.toUpperCase(),
      `${TEST_KEY.slice(0, -1)}\u00e9`, // a Latin-1 character in the last place
      Buffer.from(`${TEST_KEY.slice(0, -1)}é`, "utf8").toString("latin1"), // UTF-8 bytes of a non-ASCII last character
      Buffer.from("ключ-🔑", "utf8").toString("latin1"),
      encodeURIComponent(TEST_KEY + "é"),
      "",
      "A".repeat(10_000),
    ];
    const before = await rowCounts(db.sql);
    for (const [method, path] of OPERATIONS) {
      for (const key of wrong) {
        const request = authorised(method, path, method === "POST" ? lead : undefined, key);
        expect({ key, method, path, ...(await answer(request)) }).toEqual({
          key,
          method,
          path,
          status: 401,
          code: "UNAUTHORIZED",
        });
      }
      // The right key works on the same operation, so the 401s were about the key alone.
      const ok = await answer(authorised(method, path, method === "POST" ? lead : undefined));
      expect(ok.status).toBe(method === "POST" ? 201 : 200);
    }
    expect((await rowCounts(db.sql)).referrals).toBe(before.referrals + 1);
  });

  it("never authenticates a key in the URL, a cookie or another header", async () => {
    for (const [method, path] of OPERATIONS) {
      const body = method === "POST" ? lead : undefined;
      const {
        headers: [, ...rest],
      } = authorised(method, path, body);
      const attempts: RawRequest[] = [
        { ...authorised(method, `${path}?key=${TEST_KEY}`, body), headers: rest },
        { ...authorised(method, `${path}?access_token=${TEST_KEY}&api_key=${TEST_KEY}`, body), headers: rest },
        {
          ...authorised(method, `${path}?authorization=${encodeURIComponent(`Bearer ${TEST_KEY}`)}`, body),
          headers: rest,
        },
        {
          ...authorised(method, path, body),
          headers: [...rest, ["cookie", `key=${TEST_KEY}; LEADS_API_KEY=${TEST_KEY}`]],
        },
        { ...authorised(method, path, body), headers: [...rest, ["x-api-key", TEST_KEY], ["api-key", TEST_KEY]] },
        { ...authorised(method, path, body), headers: [...rest, ["proxy-authorization", `Bearer ${TEST_KEY}`]] },
      ];
      for (const request of attempts) {
        expect({ method, path: request.path, ...(await answer(request)) }).toEqual({
          method,
          path: request.path,
          status: 401,
          code: "UNAUTHORIZED",
        });
      }
    }
  });

  it("is compared with timingSafeEqual (a guard beside the behaviour above, not a proof)", () => {
    const source = readFileSync(path.join(process.cwd(), "lib/api/auth.ts"), "utf8");
    expect(source).toMatch(/import\s*{[^}]*\btimingSafeEqual\b[^}]*}\s*from\s*"node:crypto"/);
    expect(source).toMatch(/timingSafeEqual\(/);
    // No early-exit comparison of the presented key with the configured one.
    expect(source).not.toMatch(/(presented|key)\s*[!=]==?\s*(presented|key)\b/);
  });
});
