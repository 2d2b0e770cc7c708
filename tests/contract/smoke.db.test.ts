import { beforeAll, describe, expect, it } from "vitest";
import { post, call } from "../helpers/api";
import { createTestDatabase, rowCounts, type TestDatabase } from "../helpers/db";
import { validLead } from "../helpers/lead";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});

describe("smoke", () => {
  it("creates a lead", async () => {
    const res = await post(validLead({ leadName: "Ali", referrer: "Facebook ads" }));
    expect(res.status).toBe(201);
    expect(res.body.lead.leadMobileNumber).toBe("60123456789");
    const list = await call("GET", "/api/leads");
    expect(list.body.pagination.total).toBe(1);
    expect(await rowCounts(db.sql)).toMatchObject({ referrals: 1, audit_entries: 1 });
  });
});
