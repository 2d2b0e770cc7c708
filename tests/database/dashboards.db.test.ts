import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Customer, PrismaClient, User } from "@/lib/generated/prisma/client";
import { call, post, type ApiResponse } from "../helpers/api";
import { agentView, hostClient, managerView, type DashboardRecord } from "../helpers/dashboards";
import { createTestDatabase, rowCounts, type TestDatabase } from "../helpers/db";
import { validLead } from "../helpers/lead";

/**
 * Leads created through POST /api/leads are exactly what the host's manager and
 * agent dashboards read (spec: "Leads created here appear in the existing manager
 * and agent dashboards of the host system"), and rejected requests leave them as
 * they were. The dashboards are host code: their own Prisma client and pool.
 */

let db: TestDatabase;
let host: PrismaClient;
let siti: User; // sales agent
let ravi: User; // sales agent who is also a manager
let mona: User; // manager, not sales: not assignable
let person: Customer; // an existing person Introducer

beforeAll(async () => {
  db = await createTestDatabase();
  host = hostClient(db.url);
  siti = await host.user.create({ data: { platformId: "plat-siti", name: "Siti Sales", accessLevels: ["sales"] } });
  ravi = await host.user.create({
    data: { platformId: "plat-ravi", name: "Ravi Kumar", accessLevels: ["manager", "sales"] },
  });
  mona = await host.user.create({ data: { platformId: "plat-mona", name: "Mona Manager", accessLevels: ["manager"] } });
  person = await host.customer.create({
    data: { id: "cus_host_aminah", kind: "person", name: "Aminah Binti Ali", mobileNumber: "60121112222" },
  });
});

afterAll(async () => {
  await host.$disconnect();
  await db.sql.end();
});

interface Created {
  lead: {
    referralId: number;
    leadCustomerId: string;
    leadName: string;
    leadMobileNumber: string;
    referrer: { customerId: string; name: string; type: "source" | "person" };
    assignedAgentId: string | null;
    status: "Pending" | "Assigned";
  };
  agent: User | null;
  startedAt: Date;
  finishedAt: Date;
}

async function create(body: Record<string, unknown>, agent: User | null): Promise<Created> {
  const startedAt = new Date();
  const res: ApiResponse = await post(body);
  const finishedAt = new Date();
  expect(res.status, res.text).toBe(201);
  return { lead: res.body.lead, agent, startedAt, finishedAt };
}

/** The dashboard record must say what the 201 response promised. */
function expectRecordMatches(record: DashboardRecord, { lead, agent, startedAt, finishedAt }: Created) {
  expect(record.id).toBe(lead.referralId);
  expect(record.status).toBe(lead.status);
  expect(record.status).toBe(agent ? "Assigned" : "Pending");
  expect(record.leadName).toBe(lead.leadName);
  expect(record.mobileNumber).toBe(lead.leadMobileNumber);
  expect(record.mobileNumber).toMatch(/^60\d{9,11}$/);

  expect(record.leadCustomerId).toBe(lead.leadCustomerId);
  expect(record.leadCustomer).toMatchObject({
    id: lead.leadCustomerId,
    kind: "person",
    name: lead.leadName,
    mobileNumber: lead.leadMobileNumber,
    sourceType: null,
  });

  expect(record.referrerCustomerId).toBe(lead.referrer.customerId);
  expect({ id: record.referrer.id, name: record.referrer.name, kind: record.referrer.kind }).toEqual({
    id: lead.referrer.customerId,
    name: lead.referrer.name,
    kind: lead.referrer.type,
  });

  // The assigned agent is the whole user row of the agent given; the preferred-agent field stays empty.
  expect(record.assignedAgentId).toBe(agent?.id ?? null);
  expect(record.assignedAgent).toEqual(agent);
  expect(record.assignedAgent?.platformId ?? null).toBe(lead.assignedAgentId);
  expect(record.preferredAgentId).toBeNull();
  expect(record.preferredAgent).toBeNull();

  // created_at is set by the database during the request (same machine clock; 1 s slack for rounding).
  expect(record.createdAt).toBeInstanceOf(Date);
  expect(record.createdAt!.getTime()).toBeGreaterThanOrEqual(startedAt.getTime() - 1000);
  expect(record.createdAt!.getTime()).toBeLessThanOrEqual(finishedAt.getTime() + 1000);

  expect(record.auditEntries).toHaveLength(1);
  expect(record.auditEntries[0].referralId).toBe(record.id);
}

const ids = (records: { id: number }[]) => records.map((r) => r.id);

describe("leads created through the API in the host's dashboards", () => {
  let created: Created[];
  let byId: (c: Created) => DashboardRecord;
  let manager: DashboardRecord[];

  beforeAll(async () => {
    created = [];
    // 0: a configured source named in another case, unassigned
    created.push(await create(validLead({ leadName: "Lead One", referrer: "facebook ads" }), null));
    // 1: a new source name (repeated spaces), agent by platform id
    created.push(
      await create(
        {
          leadName: "Lead Two",
          leadMobileNumber: "+60 13-222 3333",
          referrer: "Roadshow   Mid Valley",
          assignedAgentId: "plat-siti",
        },
        siti,
      ),
    );
    // 2: an existing person (object form), agent by numeric id as an integer
    created.push(
      await create(
        {
          leadName: "Lead Three",
          leadMobileNumber: "(011) 1234.5678",
          referrer: { customerId: person.id },
          assignedAgentId: ravi.id,
        },
        ravi,
      ),
    );
    // 3: a configured source, agent by numeric id as a digit string
    created.push(
      await create(
        {
          leadName: "Lead Four",
          leadMobileNumber: "19-876 5432",
          referrer: "Google Ads",
          assignedAgentId: String(siti.id),
        },
        siti,
      ),
    );
    // 4: an existing person, unassigned
    created.push(
      await create(
        { leadName: "Lead Five", leadMobileNumber: "0145556666", referrer: { customerId: person.id } },
        null,
      ),
    );
    // 5: a source account named by its id in the object form, agent by platform id
    created.push(
      await create(
        {
          leadName: "Lead Six",
          leadMobileNumber: "60177778888",
          referrer: { customerId: created[0].lead.referrer.customerId },
          assignedAgentId: "plat-ravi",
        },
        ravi,
      ),
    );
    manager = await managerView(host);
    byId = (c) => manager.find((r) => r.id === c.lead.referralId)!;
  });

  it("the responses promised what was asked", () => {
    expect(created.map((c) => [c.lead.status, c.lead.assignedAgentId, c.lead.referrer.type])).toEqual([
      ["Pending", null, "source"],
      ["Assigned", "plat-siti", "source"],
      ["Assigned", "plat-ravi", "person"],
      ["Assigned", "plat-siti", "source"],
      ["Pending", null, "person"],
      ["Assigned", "plat-ravi", "source"],
    ]);
    expect(created.map((c) => c.lead.leadMobileNumber)).toEqual([
      "60123456789",
      "60132223333",
      "601112345678",
      "60198765432",
      "60145556666",
      "60177778888",
    ]);
    expect(created[0].lead.referrer.name).toBe("Facebook Ads");
    expect(created[1].lead.referrer.name).toBe("Roadshow Mid Valley");
    expect(created[2].lead.referrer).toEqual({ customerId: person.id, name: person.name, type: "person" });
    expect(created[5].lead.referrer).toEqual(created[0].lead.referrer);
  });

  it("the manager view shows every record, newest first, with what the response promised", () => {
    expect(ids(manager)).toEqual(created.map((c) => c.lead.referralId).reverse());
    for (const c of created) expectRecordMatches(byId(c), c);
  });

  it("a new source name became a source account of type other, seen by the dashboard as the referrer", () => {
    expect(byId(created[1]).referrer).toMatchObject({
      kind: "source",
      name: "Roadshow Mid Valley",
      sourceType: "other",
    });
    expect(byId(created[0]).referrer).toMatchObject({ kind: "source", name: "Facebook Ads", sourceType: "ads" });
    expect(byId(created[2]).referrer).toEqual(person);
  });

  it("each record has exactly one audit entry, and there are no others", async () => {
    for (const c of created) {
      const entries = await host.auditEntry.findMany({ where: { referralId: c.lead.referralId } });
      expect(entries).toHaveLength(1);
      expect(entries[0]).toEqual(byId(c).auditEntries[0]);
    }
    expect(await host.auditEntry.count()).toBe(created.length);
  });

  it("the manager view filters by status", async () => {
    const pending = created.filter((c) => c.lead.status === "Pending");
    const assigned = created.filter((c) => c.lead.status === "Assigned");
    expect(ids(await managerView(host, { status: "Pending" }))).toEqual(
      pending.map((c) => c.lead.referralId).reverse(),
    );
    expect(ids(await managerView(host, { status: "Assigned" }))).toEqual(
      assigned.map((c) => c.lead.referralId).reverse(),
    );
    expect(await managerView(host, { status: "Contacted" })).toEqual([]);
    for (const record of await managerView(host, { status: "Pending" }))
      expect(record).toEqual(manager.find((r) => r.id === record.id));
  });

  it("each agent view shows exactly the records assigned to that user, as the manager view shows them", async () => {
    for (const user of [siti, ravi, mona]) {
      const mine = created.filter((c) => c.agent?.id === user.id);
      const view = await agentView(host, user.id);
      expect(ids(view)).toEqual(mine.map((c) => c.lead.referralId).reverse());
      expect(view).toEqual(mine.map(byId).reverse());
      for (const record of view) expect(record.assignedAgent).toEqual(user);
    }
    expect(created.filter((c) => c.agent?.id === siti.id)).toHaveLength(2);
    expect(created.filter((c) => c.agent?.id === ravi.id)).toHaveLength(2);
  });

  it("person-referral leads are in the manager view although GET /api/leads leaves them out", async () => {
    const personLeads = created.filter((c) => c.lead.referrer.type === "person");
    const sourceLeads = created.filter((c) => c.lead.referrer.type === "source");
    expect(personLeads).toHaveLength(2);
    for (const c of personLeads) expect(byId(c)).toBeDefined();

    const list = await call("GET", "/api/leads");
    expect(list.status).toBe(200);
    expect(list.body.leads.map((l: { referralId: number }) => l.referralId)).toEqual(
      sourceLeads.map((c) => c.lead.referralId).reverse(),
    );
    expect(list.body.pagination.total).toBe(sourceLeads.length);

    // What the API lists of a source lead is what the dashboard reads.
    expect(list.body.leads).not.toHaveLength(0);
    for (const listed of list.body.leads) {
      const record = manager.find((r) => r.id === listed.referralId)!;
      expect(listed).toMatchObject({
        leadCustomerId: record.leadCustomerId,
        leadName: record.leadName,
        leadMobileNumber: record.mobileNumber,
        referrer: { customerId: record.referrer.id, name: record.referrer.name, type: "source" },
        assignedAgentId: record.assignedAgent?.platformId ?? null,
        status: record.status,
        createdAt: record.createdAt!.toISOString(),
      });
    }
  });
});

describe("rejected requests leave the dashboards unchanged", () => {
  async function dashboards() {
    return {
      manager: await managerView(host),
      pending: await managerView(host, { status: "Pending" }),
      assigned: await managerView(host, { status: "Assigned" }),
      agents: await Promise.all([siti, ravi, mona].map((u) => agentView(host, u.id))),
      customers: await host.customer.findMany({ orderBy: { id: "asc" } }),
      counts: await rowCounts(db.sql),
    };
  }

  // Bodies that would create a lead (and a new source account) if they got through.
  const valid = validLead({ leadName: "Should Not Exist", referrer: "Never Created Source" });

  const rejections: [string, () => Promise<ApiResponse>, number, string][] = [
    ["body not JSON", () => post('{"leadName": "Should Not Exist", '), 400, "INVALID_JSON"],
    ["unknown property", () => post({ ...valid, status: "Assigned" }), 400, "INVALID_INPUT"],
    ["null optional field", () => post({ ...valid, assignedAgentId: null }), 400, "INVALID_INPUT"],
    ["wrong key", () => post(valid, { key: "not-the-key" }), 401, "UNAUTHORIZED"],
    ["no key", () => post(valid, { key: null }), 401, "UNAUTHORIZED"],
    [
      "wrong content type",
      () => post(JSON.stringify(valid), { headers: { "content-type": "text/plain" } }),
      415,
      "INVALID_CONTENT_TYPE",
    ],
    ["body over 1 MiB", () => post({ ...valid, remark: "x".repeat(1024 * 1024) }), 413, "PAYLOAD_TOO_LARGE"],
    [
      "unknown referrer account",
      () => post({ ...valid, referrer: { customerId: "cus_does_not_exist" } }),
      422,
      "INVALID_REFERRER",
    ],
    ["agent not in sales", () => post({ ...valid, assignedAgentId: "plat-mona" }), 422, "INVALID_AGENT"],
    ["agent id of no user", () => post({ ...valid, assignedAgentId: 999999 }), 422, "INVALID_AGENT"],
  ];

  it.each(rejections.map(([name, send, status, code]) => ({ name, send, status, code })))(
    "$name: $status $code, and nothing changes",
    async ({ send, status, code }) => {
      const before = await dashboards();
      expect(before.manager.length).toBeGreaterThan(0);
      const res = await send();
      expect(res.status, res.text).toBe(status);
      expect(res.body.code).toBe(code);
      expect(await dashboards()).toEqual(before);
    },
  );

  it("the same body with the right key and a sales agent goes through (the rejections above were about their one fault)", async () => {
    const before = (await managerView(host)).length;
    const res = await post({ ...valid, assignedAgentId: "plat-siti" });
    expect(res.status, res.text).toBe(201);
    expect(await managerView(host)).toHaveLength(before + 1);
  });
});
