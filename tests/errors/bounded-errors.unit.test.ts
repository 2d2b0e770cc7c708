import { describe, expect, it } from "vitest";
import { MAX_NESTING_DEPTH, nestingDepth, readJsonBody, unstorableText } from "@/lib/api/body";
import { ApiError, boundedIssues, issueAt, MAX_ISSUES, MAX_PATH_CHARS, type Issue } from "@/lib/api/errors";
import { parseInput, parseQuery } from "@/lib/api/validation";
import { createLeadBody, listLeadsQuery } from "@/lib/leads/schemas";
import { validLead } from "../helpers/lead";

// Decision 14: whatever a body holds, the work to refuse it and
// the answer are bounded (nesting checked first, at most MAX_ISSUES issues plus a count,
// paths cut to MAX_PATH_CHARS).

const NUL = "Must not contain U+0000 or unpaired surrogates";
const UNKNOWN = "Unknown name: not part of the API";

async function refusal(text: string): Promise<ApiError> {
  const request = new Request("http://localhost/api/leads", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: text,
  });
  try {
    parseInput(createLeadBody, await readJsonBody(request), "lead");
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

const more = (n: number): Issue => ({
  path: "",
  message: `${n} more issues not listed (only the first ${MAX_ISSUES} are)`,
});

describe("nestingDepth", () => {
  it.each([
    ["1", 0],
    ["[]", 1],
    ['{"a":[{"b":[]}]}', 4],
    ['["[[[[", "{{{{\\"[[["]', 1], // brackets inside strings, escaped quotes included, do not count
    ["[[[]]][[]]", 3],
    ["[[[[", 4], // not valid JSON: still measured, in one pass
  ])("%s nests %i deep", (text, depth) => {
    expect(nestingDepth(text, 100)).toBe(depth);
  });

  it("stops counting once past the limit", () => {
    expect(nestingDepth("[".repeat(500_000), 32)).toBe(33);
  });
});

describe("readJsonBody bounds", () => {
  it(`refuses a body nested more than ${MAX_NESTING_DEPTH} deep before parsing or walking it, with one issue`, async () => {
    // The worst known body: arrays 37,000 deep holding 8,200 "\u0000" leaves.
    const body = `${"[".repeat(37_000)}${Array(8_200).fill('"\\u0000"').join(",")}${"]".repeat(37_000)}`;
    const error = await refusal(body);
    expect(error.toJSON()).toEqual({
      error: "Invalid request body",
      code: "INVALID_INPUT",
      issues: [{ path: "", message: `Nested more than ${MAX_NESTING_DEPTH} levels deep (arrays and objects)` }],
    });
  });

  it(`accepts nesting of exactly ${MAX_NESTING_DEPTH} levels as far as the schema`, async () => {
    const nested = `${"[".repeat(MAX_NESTING_DEPTH - 1)}${"]".repeat(MAX_NESTING_DEPTH - 1)}`;
    const error = await refusal(`{"leadName":"Ali","leadMobileNumber":"0123456789","referrer":"Ads","x":${nested}}`);
    expect(error.issues).toEqual([{ path: "x", message: UNKNOWN }]);
  });

  it("lists the first U+0000 strings in body order and counts the rest", async () => {
    const error = await refusal(`[${Array(8_200).fill('"\\u0000"').join(",")}]`);
    expect(error.issues).toEqual([
      ...Array.from({ length: MAX_ISSUES }, (_, i) => ({ path: String(i), message: NUL })),
      more(8_200 - MAX_ISSUES),
    ]);
  });

  it("cuts long paths, never inside a surrogate pair", async () => {
    const key = `${"k".repeat(MAX_PATH_CHARS - 2)}\u{1F600}tail`;
    const error = await refusal(JSON.stringify({ [key]: { [key]: "\u0000" } }));
    const [issue] = error.issues!;
    expect(issue.path).toBe(`${"k".repeat(MAX_PATH_CHARS - 2)}…`);
    expect(issue.path.length).toBeLessThanOrEqual(MAX_PATH_CHARS);
    expect(issue.path.isWellFormed()).toBe(true);
  });

  it("reports a lone surrogate as well as U+0000, each once", () => {
    expect(unstorableText({ a: "ok", b: ["\ud800", { c: "x\u0000" }] })).toEqual([
      { path: "b.0", message: NUL },
      { path: "b.1.c", message: NUL },
    ]);
  });
});

describe("validation bounds", () => {
  it("reports the first unknown properties and counts the rest (105,000 of them)", () => {
    const body = validLead() as Record<string, unknown>;
    for (let i = 0; i < 105_000; i++) body[`u${i}`] = 0;
    let thrown: unknown;
    try {
      parseInput(createLeadBody, body, "lead");
    } catch (error) {
      thrown = error;
    }
    expect((thrown as ApiError).issues).toEqual([
      ...Array.from({ length: MAX_ISSUES }, (_, i) => ({ path: `u${i}`, message: UNKNOWN })),
      more(105_000 - MAX_ISSUES),
    ]);
  });

  it("bounds query parameter issues the same way", () => {
    const names = Array.from({ length: 500 }, (_, i) => `p${i}=1`).join("&");
    let thrown: unknown;
    try {
      parseQuery(listLeadsQuery, new Request(`http://localhost/api/leads?${names}&limit=1&limit=2`));
    } catch (error) {
      thrown = error;
    }
    const issues = (thrown as ApiError).issues!;
    expect(issues).toHaveLength(MAX_ISSUES + 1);
    expect(issues.at(-1)).toEqual(more(501 - MAX_ISSUES));
  });

  it("boundedIssues leaves a short list alone and says 'issue' for one more", () => {
    const list = Array.from({ length: MAX_ISSUES }, (_, i) => issueAt(["f", i], "bad"));
    expect(boundedIssues(list)).toEqual(list);
    expect(boundedIssues(list, MAX_ISSUES + 1).at(-1)).toEqual({
      path: "",
      message: `1 more issue not listed (only the first ${MAX_ISSUES} are)`,
    });
  });
});
