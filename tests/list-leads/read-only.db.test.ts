import { expect, it } from "vitest";
import { rowCounts } from "../helpers/db";
import { allPages, listLeads } from "../helpers/read-fixtures";
import { db, arrangeListedLeads } from "../helpers/listed-leads";

arrangeListedLeads();

it("reading creates and changes nothing", async () => {
  const snapshot = async () =>
    (await db.sql.query(`SELECT id, status, assigned_agent_id, created_at FROM referrals ORDER BY id`)).rows;
  const counts = await rowCounts(db.sql);
  const before = await snapshot();
  await allPages(50);
  await allPages(20, "Google Ads");
  await listLeads("?referrer=Nobody%20Here");
  expect(await rowCounts(db.sql)).toEqual(counts);
  expect(await snapshot()).toEqual(before);
});
