import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readJsonBody } from "@/lib/api/body";
import { ifNoneMatch } from "@/lib/api/response";
import { ApiError, type Issue } from "@/lib/api/errors";
import { parseInput, parseQuery } from "@/lib/api/validation";
import { createLeadBody, listLeadsQuery } from "@/lib/leads/schemas";
import { openApiDocument, schemaValidator } from "../helpers/openapi";
import { validLead } from "../helpers/lead";

/**
 * No value the document calls valid is refused by the server with 400,
 * and none it calls invalid is accepted. fast-check draws values from the
 * document's own patterns and near misses around them (white space of every kind
 * around and inside, lengths at the bounds, astral characters, U+0000, unpaired
 * surrogates, numbers at and past the integer bounds); each request is judged by
 * the document (Ajv on its JSON Schema) and by the server's own reading of it
 * (readJsonBody and the zod schemas, in-process), and the two must agree.
 */

const doc = openApiDocument();
const request = doc.components.schemas.CreateLeadRequest;
const documentAccepts = schemaValidator(
  { $ref: "#/components/schemas/CreateLeadRequest" },
  "generator CreateLeadRequest",
);
const BASE = validLead({ leadName: "Aminah Binti Ali" });
const RUNS = { numRuns: 400 };

interface Answer {
  accepted: boolean;
  issues?: Issue[];
}

/** What the server answers a POST body with, short of the database: accepted, or 400 with its issues. */
async function serverAnswer(body: unknown): Promise<Answer> {
  const post = new Request("http://localhost/api/leads", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  try {
    parseInput(createLeadBody, await readJsonBody(post), "lead");
    return { accepted: true };
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) return { accepted: false, issues: error.issues };
    throw error;
  }
}

// Everything String.prototype.trim and the patterns' \s treat as white space, and look-alikes that are not.
const SPACE = fc.constantFrom(" ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u2028", "\u3000", "\ufeff");
const CHAR = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("a", "Z", "é", "-", "_", "0", "7", "(", ")", ".", "+") },
  { weight: 2, arbitrary: SPACE },
  { weight: 2, arbitrary: fc.constantFrom("\u{1D49C}", "😀", "\u200b", "\u0301") },
);
/** What PostgreSQL cannot store, put at one place of a text a quarter of the time. */
const UNSTORABLE = fc.option(fc.tuple(fc.nat(), fc.constantFrom("\0", "\ud800", "\udfff")), { freq: 3 });
const around = (core: fc.Arbitrary<string>) =>
  fc
    .tuple(fc.array(SPACE, { maxLength: 3 }), core, fc.array(SPACE, { maxLength: 3 }))
    .map(([a, b, c]) => a.join("") + b + c.join(""));

/** Texts of lengths at and around the given bounds, with white space around them. */
const nearBounds = (...bounds: number[]) =>
  around(
    fc
      .constantFrom(...bounds.flatMap((n) => [n - 1, n, n + 1]).filter((n) => n >= 0))
      .chain((n) => fc.tuple(fc.array<string>(CHAR, { minLength: n, maxLength: n }), UNSTORABLE))
      .map(([chars, bad]) => {
        if (bad && chars.length) chars[bad[0] % chars.length] = bad[1];
        return chars.join("");
      }),
  );

/** Strings the pattern itself generates (a look-ahead, which fast-check cannot draw from, left out). */
const fromPattern = (pattern: string) => fc.stringMatching(new RegExp(pattern.replace(/\(\?=[^)]*\)/, ""), "u"));

async function expectAgreement(field: string, values: fc.Arbitrary<unknown>, runs = RUNS): Promise<void> {
  await fc.assert(
    fc.asyncProperty(values, async (value) => {
      const body = { ...BASE, [field]: value };
      const answer = await serverAnswer(body);
      expect({ value, accepted: answer.accepted }).toEqual({ value, accepted: documentAccepts(body) });
      // One issue per path (assignedAgentId 9007199254740992 would give two).
      const paths = (answer.issues ?? []).map((issue) => issue.path);
      expect(new Set(paths).size).toBe(paths.length);
    }),
    runs,
  );
}

const p = request.properties;
const MOBILE_PREFIX = fc.constantFrom("", "+", "+6", "+60", "+06", "60", "6", "0", "00", "1", "2", "(0", "-");
/**
 * A prefix, 7 to 13 digits (the canonical rule allows 9 to 11 after 60), and a few formatting (or not formatting)
 * characters spliced in anywhere.
 */
const MOBILE = fc
  .tuple(
    MOBILE_PREFIX,
    fc
      .integer({ min: 7, max: 13 })
      .chain((n) => fc.array(fc.constantFrom(..."0123456789"), { minLength: n, maxLength: n })),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom(" ", "(", ")", ".", "-", "\t", "/", "+")), { maxLength: 4 }),
  )
  .map(([prefix, digits, inserts]) => {
    for (const [at, char] of inserts) digits.splice(at % (digits.length + 1), 0, char);
    return prefix + digits.join("");
  });

describe("the document and the server agree on every POST /api/leads field", () => {
  it.each([
    ["leadName", 2, 120],
    ["leadState", 0, 120],
    ["leadCity", 0, 120],
    ["leadAddress", 0, 500],
    ["remark", 0, 500],
  ] as const)("%s: trimmed length %i to %i, no U+0000 or unpaired surrogates", async (field, min, max) => {
    await expectAgreement(
      field,
      fc.oneof(fromPattern(p[field].pattern), nearBounds(min, max), fc.constant(null), fc.integer()),
    );
  });

  it("leadMobileNumber: the mobile rule, 6 to 40 characters after trimming", async () => {
    const values = fc.oneof(
      { weight: 1, arbitrary: fromPattern(p.leadMobileNumber.pattern) },
      { weight: 4, arbitrary: around(MOBILE) },
      { weight: 1, arbitrary: nearBounds(6, 40) },
    );
    await expectAgreement("leadMobileNumber", values, { numRuns: 2000 });
    for (const [value, accepted] of [
      ["+00000000000000000000000000000000000000", false],
      [" +60123456789", true],
      ["012-345 6789", true],
    ] as const) {
      expect((await serverAnswer({ ...BASE, leadMobileNumber: value })).accepted, value).toBe(accepted);
      expect(documentAccepts({ ...BASE, leadMobileNumber: value }), value).toBe(accepted);
    }
  });

  it("referrer: a name of 2 to 120 characters after trimming, or {customerId} of 1 to 120", async () => {
    const [name, object] = p.referrer.anyOf;
    const customerId = fc.oneof(fromPattern(object.properties.customerId.pattern), nearBounds(1, 120));
    await expectAgreement(
      "referrer",
      fc.oneof(
        fromPattern(name.pattern),
        nearBounds(2, 120),
        customerId.map((id) => ({ customerId: id })),
        fc.constant({}),
      ),
    );
  });

  it("assignedAgentId: a platform id of 1 to 80 letters, digits, _ or - after trimming, or a positive safe integer", async () => {
    const integers = fc.oneof(
      fc.constantFrom(0, 1, -1, 1.5, Number.MAX_SAFE_INTEGER, 9007199254740992, 1e300),
      fc.integer({ min: -5, max: 5000 }),
    );
    await expectAgreement(
      "assignedAgentId",
      fc.oneof(fromPattern(p.assignedAgentId.anyOf[0].pattern), nearBounds(1, 80), integers),
    );
    expect((await serverAnswer({ ...BASE, assignedAgentId: " demo-agent-aisyah " })).accepted).toBe(true);
    expect((await serverAnswer({ ...BASE, assignedAgentId: 9007199254740992 })).issues).toEqual([
      { path: "assignedAgentId", message: expect.any(String) },
    ]);
  });
});

describe("the document and the server agree on GET /api/leads's query", () => {
  const parameter = (name: string) => {
    const param = doc.paths["/api/leads"].get.parameters.map(
      (ref: { $ref: string }) => doc.components.parameters[ref.$ref.split("/").pop()!],
    );
    return param.find((candidate: { name: string }) => candidate.name === name);
  };
  const referrerAccepts = schemaValidator(parameter("referrer").schema, "generator referrer parameter");

  function serverAccepts(query: URLSearchParams): boolean {
    try {
      parseQuery(listLeadsQuery, new Request(`http://localhost/api/leads?${query}`));
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) return false;
      throw error;
    }
  }

  it("referrer: 2 to 120 characters after trimming (so %20%20 is refused)", async () => {
    expect(serverAccepts(new URLSearchParams({ referrer: "  " }))).toBe(false);
    await fc.assert(
      fc.property(fc.oneof(fromPattern(parameter("referrer").schema.pattern), nearBounds(2, 120)), (value) => {
        const query = new URLSearchParams({ referrer: value });
        // The document judges the value the server decodes (a URL carries UTF-8: an unpaired surrogate arrives as
        // U+FFFD).
        const sent = new URLSearchParams(query.toString()).get("referrer")!;
        expect({ sent, accepted: serverAccepts(query) }).toEqual({ sent, accepted: referrerAccepts(sent) });
      }),
      RUNS,
    );
  });

  it.each(["limit", "offset"])("%s: an integer within the documented bounds", async (name) => {
    const { minimum, maximum } = parameter(name).schema;
    const values = fc.oneof(
      fc.integer({ min: minimum - 3, max: minimum + 3 }),
      fc.integer({ min: maximum - 3, max: maximum + 3 }),
      fc.integer(),
    );
    fc.assert(
      fc.property(values, (value) => {
        const documented = Number.isInteger(value) && value >= minimum && value <= maximum;
        expect({ value, accepted: serverAccepts(new URLSearchParams({ [name]: String(value) })) }).toEqual({
          value,
          accepted: documented,
        });
      }),
      RUNS,
    );
  });
});

describe("the document and the server agree on GET /api/leads/sources's If-None-Match", () => {
  const parameter = doc.components.parameters["If-None-Match"];
  const documentAcceptsTag = schemaValidator(parameter.schema, "generator If-None-Match");
  const { maxLength } = parameter.schema;

  function serverAccepts(value: string): boolean {
    try {
      ifNoneMatch(new Request("http://localhost/api/leads/sources", { headers: { "if-none-match": value } }));
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) return false;
      throw error;
    }
  }

  it("states a bound, and a longer value is the documented 400 INVALID_INPUT", () => {
    expect(maxLength).toBeGreaterThan(0);
    expect(doc.paths["/api/leads/sources"].get.responses[400]).toBeDefined();
  });

  it("accepts exactly the lengths the document accepts", () => {
    // Header values arrive without white space at either end, so the drawn values have none there.
    const tags = fc.array(fc.constantFrom('"1"', 'W/"22"', "*", '"333"', " ", ","), { maxLength: maxLength / 2 + 10 });
    const value = fc.tuple(fc.integer({ min: maxLength - 8, max: maxLength + 8 }), tags).map(([length, parts]) => {
      const text = parts.join("").trim();
      return `"${text.padEnd(length - 2, "x").slice(0, Math.max(0, length - 2))}"`;
    });
    fc.assert(
      fc.property(value, (sent) => {
        expect({ length: sent.length, accepted: serverAccepts(sent) }).toEqual({
          length: sent.length,
          accepted: documentAcceptsTag(sent),
        });
      }),
      RUNS,
    );
  });
});
