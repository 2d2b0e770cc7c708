import { afterAll, beforeAll, expect } from "vitest";
import { post } from "./api";
import { createTestDatabase, type TestDatabase } from "./db";
import { insertPerson, insertReferrals, insertUser, sourcesByName } from "./read-fixtures";
import { EVERY_OPTIONAL_FIELD, validLead } from "./lead";

/**
 * The data the tests of "GET /api/leads" (tests/list-leads/) read: strict query, referrer filter, order, pagination
 * and the ListedLead resource. It is arranged once per file (POSTs, then host rows written
 * with SQL, interleaved with person referrals) and every test only reads it.
 */

export let db: TestDatabase;
/** Ids of the source leads by source name, ascending. */
export const ids: Record<string, number[]> = {};
/** Ids of the person-referral leads, which GET /api/leads leaves out. */
export const personLeadIds: number[] = [];
/** Every source lead, newest referralId first: what an unfiltered listing must give. */
export let allSourceIds: number[];
export let sources: Map<string, { id: string; name: string; type: string }>;
export let personId: string;
/** POST responses of the leads created through the API, by a label. */
export const created: Record<string, any> = {};

export async function create(label: string, body: Record<string, unknown>) {
  const res = await post(validLead(body));
  expect(res.status, res.text).toBe(201);
  created[label] = res.body.lead;
  return res.body.lead;
}

export const desc = (list: number[]) => [...list].sort((a, b) => b - a);
export const push = (name: string, list: number[]) => (ids[name] ??= []).push(...list);

/** Arranges the data before the file's tests (a database of its own) and closes its pool after them. */
export function arrangeListedLeads() {
  beforeAll(async () => {
    db = await createTestDatabase();
    await insertUser(db.sql, { name: "Aisyah", platformId: "plat-aisyah", accessLevels: ["sales"] });
    personId = await insertPerson(db.sql, "Tan Ah Kow");

    const full = await create("full", {
      ...EVERY_OPTIONAL_FIELD,
      leadName: "  Nur Aisyah  ",
      leadMobileNumber: "+60 12-345 6789",
      assignedAgentId: "plat-aisyah",
    });
    push("Facebook Ads", [full.referralId]);
    push("Facebook Ads Premium", [
      (await create("premium", { leadName: "Premium Lead", referrer: "Facebook Ads Premium" })).referralId,
    ]);
    personLeadIds.push(
      (await create("person", { leadName: "Person Lead", referrer: { customerId: personId } })).referralId,
    );
    push("Google Ads", [(await create("google", { leadName: "Google Lead", referrer: "google ads" })).referralId]);
    push("Roadshow KL", [
      (await create("roadshow", { leadName: "Roadshow Lead", referrer: "Roadshow   KL" })).referralId,
    ]);
    push("50% Off Promo", [(await create("promo", { leadName: "Promo Lead", referrer: "50% Off Promo" })).referralId]);

    sources = await sourcesByName();
    for (let round = 1; round <= 5; round++) {
      push("Facebook Ads", await insertReferrals(db.sql, sources.get("Facebook Ads")!.id, 24, `Fb ${round}`));
      personLeadIds.push(...(await insertReferrals(db.sql, personId, 5, `Person ${round}`)));
      push("Google Ads", await insertReferrals(db.sql, sources.get("Google Ads")!.id, 12, `Google ${round}`));
    }
    allSourceIds = desc(Object.values(ids).flat());
  });
  afterAll(() => db.sql.end());
}
