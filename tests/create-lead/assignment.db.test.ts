import { describe, expect, it } from "vitest";
import { post } from "../helpers/api";
import { expectError, expectNoWrites } from "../helpers/expect-api";
import { db, users, personId, MIN, created, referralRow, setUpCreateLead } from "../helpers/create-lead-fixture";
import { insertUser } from "../helpers/read-fixtures";

setUpCreateLead();

describe("assignedAgentId (rule 6)", () => {
  it.each([
    ["the platform id", () => "plat_sales_1", "plat_sales_1", () => users.sales],
    ["the numeric id as an integer", () => users.sales, "plat_sales_1", () => users.sales],
    ["the numeric id as a digit string", () => String(users.sales), "plat_sales_1", () => users.sales],
    ["the platform id with white space around it", () => "  plat-multi-2 ", "plat-multi-2", () => users.manager],
    [
      "the numeric id of a user with sales among other levels",
      () => users.manager,
      "plat-multi-2",
      () => users.manager,
    ],
  ])("assigns by %s and answers the platform id", async (_, id, platformId, userId) => {
    const lead = created(await post({ ...MIN, assignedAgentId: id() }));
    expect(lead.status).toBe("Assigned");
    expect(lead.assignedAgentId).toBe(platformId);
    expect(await referralRow(lead.referralId)).toMatchObject({
      status: "Assigned",
      assigned_agent_id: userId(),
      preferred_agent_id: null,
    });
  });

  it("prefers the platform id: a digit string that is one user's platform id and another's numeric id", async () => {
    const digits = String(users.sales);
    const twin = await insertUser(db.sql, { name: "Dina Digits", platformId: digits, accessLevels: ["sales"] });
    const lead = created(await post({ ...MIN, assignedAgentId: digits }));
    expect(lead.assignedAgentId).toBe(digits);
    expect(await referralRow(lead.referralId)).toMatchObject({ assigned_agent_id: twin });
  });

  it("assigns independently of the referrer: a person referrer and an agent", async () => {
    const lead = created(await post({ ...MIN, referrer: { customerId: personId }, assignedAgentId: "plat_sales_1" }));
    expect(lead).toMatchObject({ status: "Assigned", assignedAgentId: "plat_sales_1", referrer: { type: "person" } });
  });

  it.each([
    ["a user without sales access, by platform id", () => "plat_admin"],
    ["a user without sales access, by numeric id", () => users.admin],
    ["a user with no access levels", () => "plat_none"],
    ["a user with NULL access levels", () => users.nullLevels],
    ["a sales user without platform id, by integer", () => users.noPlatform],
    ["a sales user without platform id, by digit string", () => String(users.noPlatform)],
    ["an unknown platform id", () => "plat_nobody"],
    ["an unknown numeric id", () => 999999],
    ["an unknown digit string", () => "999999"],
    ['"0"', () => "0"],
    ["the largest integer accepted", () => 9007199254740991],
    ["a digit string beyond any integer column", () => "99999999999999999999"],
  ])("rejects %s with 422 INVALID_AGENT and creates nothing", async (_, id) => {
    const res = await expectNoWrites(db.sql, () => post({ ...MIN, assignedAgentId: id() }));
    expectError(res, 422, "INVALID_AGENT");
  });
});
