import { describe, expect, it } from "vitest";
import { ApiError, type Issue } from "@/lib/api/errors";
import { parseInput, toIssues } from "@/lib/api/validation";
import { MESSAGES } from "@/lib/leads/messages";
import { createLeadBody, type CreateLeadInput, validate } from "@/lib/leads/schemas";
import { FREE_TEXT_FIELDS, OPTIONAL_FIELDS, PROJECT_TYPES, RELATIONSHIPS } from "../helpers/oracle";
import { leadWithEveryField, validLead } from "../helpers/lead";

// POST /api/leads body validation (spec "POST /api/leads" table, rule 7, decisions.md 4
// and 5) without a database: createLeadBody decides, toIssues reports.

const BASE = validLead();

const UNION_REFERRER = MESSAGES.referrer;
const UNION_AGENT = MESSAGES.agentId;
const UNKNOWN_NAME = MESSAGES.unknownName;

function accept(body: unknown): CreateLeadInput {
  const result = validate(createLeadBody, body);
  if (!result.success) throw new Error(`expected acceptance, got ${JSON.stringify(toIssues(result.error.issues))}`);
  return result.data;
}

function reject(body: unknown): Issue[] {
  const result = validate(createLeadBody, body);
  if (result.success) throw new Error(`expected rejection, got ${JSON.stringify(result.data)}`);
  return toIssues(result.error.issues);
}

const pathsOf = (body: unknown) => reject(body).map((issue) => issue.path);

/** A body with one field set (or, for referrer.customerId, the object referrer). */
function withField(path: string, value: unknown): Record<string, unknown> {
  return path === "referrer.customerId" ? { ...BASE, referrer: { customerId: value } } : { ...BASE, [path]: value };
}

/** The parsed value of a field. */
function parsedField(data: CreateLeadInput, path: string): unknown {
  if (path === "referrer.customerId") return (data.referrer as { customerId: string }).customerId;
  return data[path as keyof CreateLeadInput];
}

describe("minimum body and defaults (rule 1)", () => {
  it("accepts leadName, leadMobileNumber and referrer alone, and leaves every optional field out", () => {
    const data = accept(BASE);
    // Omitted optional fields stay absent; creation applies their defaults (unassigned, "", Other, OTHERS).
    expect(data).toStrictEqual({ leadName: "Ali bin Abu", leadMobileNumber: "60123456789", referrer: "Facebook Ads" });
  });

  it.each(["leadName", "leadMobileNumber", "referrer"])("requires %s", (field) => {
    const body: Record<string, unknown> = { ...BASE };
    delete body[field];
    const issues = reject(body);
    expect(issues.map((i) => i.path)).toEqual([field]);
  });

  it("reports every missing required field of an empty object", () => {
    expect(pathsOf({})).toEqual(["leadName", "leadMobileNumber", "referrer"]);
  });

  it("keeps every optional field given", () => {
    const body = leadWithEveryField({ assignedAgentId: "agent_1" });
    expect(accept(body)).toStrictEqual({ ...body, leadMobileNumber: "60123456789" });
  });
});

describe("trimming", () => {
  it("trims every text field", () => {
    const data = accept({
      leadName: "  Ali bin Abu \n",
      leadMobileNumber: "  012-345 6789\t",
      referrer: "   Facebook Ads   ",
      assignedAgentId: "  agent_1  ",
      leadState: " Selangor ",
      leadCity: " Shah Alam ",
      leadAddress: " 1 Jalan Satu ",
      remark: " Call after 6pm ",
    });
    expect(data).toMatchObject({
      leadName: "Ali bin Abu",
      leadMobileNumber: "60123456789",
      referrer: "Facebook Ads",
      assignedAgentId: "agent_1",
      leadState: "Selangor",
      leadCity: "Shah Alam",
      leadAddress: "1 Jalan Satu",
      remark: "Call after 6pm",
    });
  });

  it("trims referrer.customerId", () => {
    expect(accept({ ...BASE, referrer: { customerId: "  cus_abc  " } }).referrer).toStrictEqual({
      customerId: "cus_abc",
    });
  });

  it("makes repeated spaces inside a referrer string one space", () => {
    expect(accept({ ...BASE, referrer: "  Facebook     Ads " }).referrer).toBe("Facebook Ads");
  });

  it("counts length after trimming (white space does not make a name long enough)", () => {
    expect(pathsOf({ ...BASE, leadName: "   A   " })).toEqual(["leadName"]);
    expect(pathsOf({ ...BASE, referrer: "   A   " })).toEqual(["referrer"]);
  });
});

describe("length bounds of every text field, at the edges", () => {
  // [path, min, max]: every bound of the spec's table and Limits section.
  const bounded: [string, number, number][] = [
    ["leadName", 2, 120],
    ["referrer", 2, 120],
    ["referrer.customerId", 1, 120],
    ["assignedAgentId", 1, 80],
    ["leadState", 0, 120],
    ["leadCity", 0, 120],
    ["leadAddress", 0, 500],
    ["remark", 0, 500],
  ];
  const text = (n: number) => "a".repeat(n);

  describe.each(bounded)("%s (%i to %i)", (path, min, max) => {
    if (min > 0) {
      it(`rejects ${min - 1} characters`, () => {
        const issues = reject(withField(path, text(min - 1)));
        expect(issues.map((i) => i.path)).toEqual([path]);
        expect(issues[0].message).toContain(String(min));
      });
    }

    it(`accepts ${min} characters`, () => {
      expect(parsedField(accept(withField(path, text(min))), path)).toBe(text(min));
    });

    it(`accepts ${max} characters, also with white space around them`, () => {
      expect(parsedField(accept(withField(path, text(max))), path)).toBe(text(max));
      expect(parsedField(accept(withField(path, `  ${text(max)}  `)), path)).toBe(text(max));
    });

    it(`rejects ${max + 1} characters`, () => {
      const issues = reject(withField(path, text(max + 1)));
      expect(issues.map((i) => i.path)).toEqual([path]);
      expect(issues[0].message).toContain(String(max));
    });
  });

  describe("leadMobileNumber (6 to 40 input characters)", () => {
    it("rejects 5 characters as too short", () => {
      const issues = reject({ ...BASE, leadMobileNumber: "12345" });
      expect(issues).toHaveLength(1);
      expect(issues[0].path).toBe("leadMobileNumber");
      expect(issues[0].message).toContain("6");
    });

    it("takes 6 characters past the length check (then they are not a Malaysian mobile number)", () => {
      expect(reject({ ...BASE, leadMobileNumber: "+60123" })).toEqual([
        { path: "leadMobileNumber", message: MESSAGES.mobileRule },
      ]);
    });

    it("accepts 40 characters, also with white space around them", () => {
      const forty = `0${" ".repeat(30)}123456789`;
      expect(forty).toHaveLength(40);
      expect(accept({ ...BASE, leadMobileNumber: forty }).leadMobileNumber).toBe("60123456789");
      expect(accept({ ...BASE, leadMobileNumber: `   ${forty}   ` }).leadMobileNumber).toBe("60123456789");
    });

    it("rejects 41 characters even though their digits would be a valid number", () => {
      const fortyOne = `0${" ".repeat(31)}123456789`;
      expect(fortyOne).toHaveLength(41);
      const issues = reject({ ...BASE, leadMobileNumber: fortyOne });
      expect(issues).toHaveLength(1);
      expect(issues[0].path).toBe("leadMobileNumber");
      expect(issues[0].message).toContain("40");
    });
  });
});

describe("allowed characters", () => {
  it.each(["012-345 6789", "(012) 345.6789", "+60 12-345 6789", "60123456789"])(
    "leadMobileNumber accepts formatting in %j",
    (mobile) => {
      expect(accept({ ...BASE, leadMobileNumber: mobile }).leadMobileNumber).toBe("60123456789");
    },
  );

  it.each(["012-345 678x", "0123+456789", "012/345/6789", "012_3456789", "+65 9123 4567", "0123456789012"])(
    "leadMobileNumber rejects %j",
    (mobile) => {
      const issues = reject({ ...BASE, leadMobileNumber: mobile });
      expect(issues.length).toBeGreaterThan(0);
      expect(issues.every((i) => i.path === "leadMobileNumber")).toBe(true);
    },
  );

  it("leadMobileNumber is answered in canonical form, 60 followed by the rest of a local 0 number", () => {
    expect(accept({ ...BASE, leadMobileNumber: "011-2345 6789" }).leadMobileNumber).toBe("601123456789");
  });

  it.each(["agent_1", "AGENT-1", "a", "0123456789", "plat_7f3a-B9", "_-_"])("assignedAgentId accepts %j", (id) => {
    expect(accept({ ...BASE, assignedAgentId: id }).assignedAgentId).toBe(id);
  });

  it.each(["agent.1", "agent 1", "agent/1", "agent@host", "agént", "1;DROP TABLE users", "a+b", "ａｂ"])(
    "assignedAgentId rejects %j",
    (id) => {
      expect(pathsOf({ ...BASE, assignedAgentId: id })).toEqual(["assignedAgentId"]);
    },
  );

  it("leadName has no character rule beyond its length", () => {
    for (const name of ["Siti Nur'Aisyah binti Ahmad", "李明", "O'Brien-Smith, Jr.", "A1"]) {
      expect(accept({ ...BASE, leadName: name }).leadName).toBe(name);
    }
  });
});

describe("enumerations are exact and case-sensitive", () => {
  it.each(RELATIONSHIPS)("relationship accepts %j", (value) => {
    expect(accept({ ...BASE, relationship: value }).relationship).toBe(value);
  });

  it.each(PROJECT_TYPES)("projectType accepts %j", (value) => {
    expect(accept({ ...BASE, projectType: value }).projectType).toBe(value);
  });

  it.each(["family", "FRIEND", "business partner", "Business partner", "other", "Neighbour", "Family ", ""])(
    "relationship rejects %j",
    (value) => {
      expect(pathsOf({ ...BASE, relationship: value })).toEqual(["relationship"]);
    },
  );

  it.each(["residential (2%)", "RESIDENTIAL", "RESIDENTIAL(2%)", "Shop-Lot (2%)", "others", "Others", " OTHERS", ""])(
    "projectType rejects %j",
    (value) => {
      expect(pathsOf({ ...BASE, projectType: value })).toEqual(["projectType"]);
    },
  );
});

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
