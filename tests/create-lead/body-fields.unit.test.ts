import { describe, expect, it } from "vitest";
import { MESSAGES } from "@/lib/leads/messages";
import { PROJECT_TYPES, RELATIONSHIPS } from "../helpers/oracle";
import { leadWithEveryField } from "../helpers/lead";
import { BASE, accept, reject, pathsOf, withField, parsedField } from "../helpers/validation";

// POST /api/leads body validation (spec "POST /api/leads" table, rule 7, decisions.md 4
// and 5) without a database: createLeadBody decides, toIssues reports.

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
