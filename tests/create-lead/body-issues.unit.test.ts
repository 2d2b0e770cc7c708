import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api/errors";
import { parseInput, toIssues } from "@/lib/api/validation";
import { createLeadBody } from "@/lib/leads/schemas";
import { FREE_TEXT_FIELDS, OPTIONAL_FIELDS } from "../helpers/oracle";
import {
  BASE,
  UNION_REFERRER,
  UNION_AGENT,
  UNKNOWN_NAME,
  accept,
  reject,
  pathsOf,
  parsedField,
} from "../helpers/validation";

// POST /api/leads body validation (spec "POST /api/leads" table, rule 7, decisions.md 4
// and 5) without a database: createLeadBody decides, toIssues reports.

describe("unknown properties (rule 7, decisions.md 5)", () => {
  it.each([
    "introducer",
    "source",
    "assigned_agent",
    "status",
    "campaignId",
    "referrerId",
    "lead_name",
    "LeadName",
    "id",
  ])("rejects %j with the property name as path", (name) => {
    expect(reject({ ...BASE, [name]: "x" })).toEqual([{ path: name, message: UNKNOWN_NAME }]);
  });

  it.each(["__proto__", "constructor", "toString", "hasOwnProperty"])(
    "rejects %j from JSON.parse with the property name as path",
    (name) => {
      const body = JSON.parse(
        `{"leadName":"Ali","leadMobileNumber":"0123456789","referrer":"Facebook Ads","${name}":{"x":1}}`,
      );
      expect(Object.keys(body)).toContain(name);
      expect(reject(body)).toEqual([{ path: name, message: UNKNOWN_NAME }]);
    },
  );

  it("reports each unknown property once, next to the other problems", () => {
    expect(pathsOf({ ...BASE, leadName: "A", introducer: "x", status: "Assigned" })).toEqual([
      "leadName",
      "introducer",
      "status",
    ]);
  });

  it("names are case-sensitive: a wrongly cased required field is unknown and the real one missing", () => {
    expect(pathsOf({ LEADNAME: "Ali", leadMobileNumber: "0123456789", referrer: "Facebook Ads" })).toEqual([
      "leadName",
      "LEADNAME",
    ]);
  });

  it("rejects unknown properties inside the referrer object with their dotted path", () => {
    expect(reject({ ...BASE, referrer: { customerId: "cus_1", name: "Siti" } })).toEqual([
      { path: "referrer.name", message: UNKNOWN_NAME },
    ]);
  });
});

describe("null and empty values (rule 7, decisions.md 4)", () => {
  it.each(OPTIONAL_FIELDS)("rejects null for optional %s", (field) => {
    expect(pathsOf({ ...BASE, [field]: null })).toEqual([field]);
  });

  it.each(["leadName", "leadMobileNumber", "referrer"])("rejects null for required %s", (field) => {
    expect(pathsOf({ ...BASE, [field]: null })).toEqual([field]);
  });

  it.each(["", "   ", "\t\n"])("rejects the empty or blank assignedAgentId %j", (id) => {
    const issues = reject({ ...BASE, assignedAgentId: id });
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe("assignedAgentId");
    expect(issues[0].message).not.toBe(UNION_AGENT);
  });

  it.each(FREE_TEXT_FIELDS)('accepts an empty or blank %s as ""', (field) => {
    expect(parsedField(accept({ ...BASE, [field]: "" }), field)).toBe("");
    expect(parsedField(accept({ ...BASE, [field]: "   " }), field)).toBe("");
  });
});

describe("assignedAgentId as integer: 1 to 9007199254740991", () => {
  it.each([1, 42, 2147483648, 9007199254740991])("accepts %d and keeps it an integer", (id) => {
    expect(accept({ ...BASE, assignedAgentId: id }).assignedAgentId).toBe(id);
  });

  it.each([0, -1, -0, 1.5, 2 ** 53, 1e300])("rejects %d", (id) => {
    const issues = reject({ ...BASE, assignedAgentId: id });
    expect(issues.length).toBeGreaterThan(0);
    expect(new Set(issues.map((i) => i.path))).toEqual(new Set(["assignedAgentId"]));
  });

  it("keeps a digit string a string (a numeric user id written as text)", () => {
    expect(accept({ ...BASE, assignedAgentId: "42" }).assignedAgentId).toBe("42");
  });

  it.each([[true], [[]], [[1]], [{ id: 1 }], [null]])(
    "rejects the non-string, non-integer %j as neither form",
    (id) => {
      expect(reject({ ...BASE, assignedAgentId: id })).toEqual([{ path: "assignedAgentId", message: UNION_AGENT }]);
    },
  );
});

describe('the body as a whole (decisions.md 5: path "")', () => {
  it.each([[[]], [[BASE]], ["a string"], [42], [null], [true]])("rejects %j", (body) => {
    const issues = reject(body);
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe("");
  });
});

describe("referrer union reporting", () => {
  it("says a one-character string is too short instead of a generic union message", () => {
    const issues = reject({ ...BASE, referrer: "A" });
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe("referrer");
    expect(issues[0].message).not.toBe(UNION_REFERRER);
    expect(issues[0].message).toMatch(/too short/i);
    expect(issues[0].message).toContain("2");
  });

  it("says a 121-character string is too long", () => {
    const issues = reject({ ...BASE, referrer: "a".repeat(121) });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: "referrer" });
    expect(issues[0].message).toMatch(/too long/i);
    expect(issues[0].message).toContain("120");
  });

  it("reports an extra key of the object form at its own path", () => {
    expect(reject({ ...BASE, referrer: { customerId: "cus_1", extra: 1 } })).toEqual([
      { path: "referrer.extra", message: UNKNOWN_NAME },
    ]);
  });

  it.each([{ customerId: "" }, { customerId: "   " }, {}, { customerId: 5 }, { customerId: null }])(
    "reports %j at referrer.customerId",
    (referrer) => {
      const issues = reject({ ...BASE, referrer });
      expect(issues).toHaveLength(1);
      expect(issues[0].path).toBe("referrer.customerId");
    },
  );

  it("reports an object without customerId but with a name as both problems", () => {
    expect(pathsOf({ ...BASE, referrer: { name: "Facebook Ads" } })).toEqual(["referrer.customerId", "referrer.name"]);
  });

  it.each([[null], [5], [true], [[]], [["Facebook Ads"]], [["ab", "cd"]]])(
    "reports %j, which is neither form, with the union message",
    (referrer) => {
      expect(reject({ ...BASE, referrer })).toEqual([{ path: "referrer", message: UNION_REFERRER }]);
    },
  );
});

describe("toIssues", () => {
  it("reports a value of the wrong type by its type only, not by checks zod ran on it anyway", () => {
    // An array has a length, so zod 4 also measures it against a string's minimum.
    for (const field of ["leadName", "leadMobileNumber", "remark"]) {
      const issues = reject({ ...BASE, [field]: [] });
      expect(issues).toEqual([{ path: field, message: "Must be a string" }]);
    }
  });

  it("prefixes paths and dot-joins them", () => {
    const result = createLeadBody.safeParse({ ...BASE, referrer: { customerId: "" } });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(toIssues(result.error.issues, ["body"]).map((i) => i.path)).toEqual(["body.referrer.customerId"]);
    }
  });

  it("parseInput turns failures into 400 INVALID_INPUT carrying the issues", () => {
    let thrown: unknown;
    try {
      parseInput(createLeadBody, { ...BASE, campaignId: "c1" }, "lead");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const error = thrown as ApiError;
    expect(error.status).toBe(400);
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.toJSON()).toEqual({
      error: "Invalid lead",
      code: "INVALID_INPUT",
      issues: [{ path: "campaignId", message: UNKNOWN_NAME }],
    });
  });

  it("parseInput returns the parsed body when it is valid", () => {
    expect(parseInput(createLeadBody, BASE, "lead")).toStrictEqual({
      leadName: "Ali bin Abu",
      leadMobileNumber: "60123456789",
      referrer: "Facebook Ads",
    });
  });
});
