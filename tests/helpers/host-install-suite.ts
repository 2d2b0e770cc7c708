import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, readMigrations } from "@/lib/db/migrate";
import { call, post } from "./api";
import { agentView, hostClient, managerView } from "./dashboards";
import { rowCounts, type TestDatabase } from "./db";
import {
  HOST,
  KEYS_AFTER_CONFIGURED_SOURCES,
  createHostDatabase,
  currentRowsOf,
  migrationRecords,
  snapshotRows,
  snapshotSchema,
  sourceNames,
  type HostLayout,
} from "./host-install";

/**
 * Installing the module on a host database that already holds data: the module's
 * migrations (applied by its own runner, as every server process does before its
 * first request) change no existing row, column or constraint, register the host's
 * sources, and the service then works on that database. One test file per layout,
 * because the service's client (and the layout it reads) is per process.
 */
export function hostInstallSuite(layout: HostLayout) {
  const hasAssignment = layout !== "no-assignment";
  let db: TestDatabase;
  let rowsBefore: Awaited<ReturnType<typeof snapshotRows>>;
  let schemaBefore: Awaited<ReturnType<typeof snapshotSchema>>;
  let applied: string[];

  beforeAll(async () => {
    db = await createHostDatabase(layout);
    rowsBefore = await snapshotRows(db.sql);
    schemaBefore = await snapshotSchema(db.sql);
    applied = await migrate(db.url);
  });
  afterAll(() => db.sql.end());

  describe(`installing the module on an existing host database (${layout} layout)`, () => {
    it("starts from the host's own tables and data, without anything of the module", () => {
      expect(Object.fromEntries(Object.entries(rowsBefore).map(([t, rows]) => [t, rows.length]))).toEqual({
        customers: 9,
        users: 5,
        referrals: 4,
        audit_entries: 3,
      });
      const columns = schemaBefore.columns.map((c) => `${c.table_name}.${c.column_name}`);
      expect(columns.includes("users.access_levels")).toBe(layout !== "legacy");
      expect(columns.includes("referrals.assigned_agent_id")).toBe(hasAssignment);
    });

    it("applies every migration and changes no existing row", async () => {
      expect(applied).toEqual((await readMigrations()).map((m) => m.name));
      expect(applied).toHaveLength(12);
      expect(await snapshotRows(db.sql)).toEqual(rowsBefore);
    });

    it("changes or drops no column or constraint of the host tables; adds only indexes and the count triggers", async () => {
      const after = await snapshotSchema(db.sql);
      expect(after.columns).toEqual(schemaBefore.columns);
      expect(after.constraints).toEqual(schemaBefore.constraints);
      for (const index of schemaBefore.indexes) expect(after.indexes).toContainEqual(index);
      const added = after.indexes
        .filter((i) => !schemaBefore.indexes.some((b) => b.name === i.name))
        .map((i) => i.name);
      expect(added.sort()).toEqual(
        [
          "audit_entries_referral_id_idx",
          "customers_kind_idx",
          "customers_source_key_idx",
          "referrals_referrer_customer_id_id_idx",
          ...(hasAssignment ? ["referrals_assigned_agent_id_idx"] : []),
        ].sort(),
      );
      // The host had no triggers; the module adds one per event on referrals, which keep the lead counts in step, and
      // the two on customers that count changes to the list of sources.
      expect(schemaBefore.triggers).toEqual([]);
      expect(after.triggers.map((t) => `${t.table}.${t.name}`)).toEqual([
        "customers.lead_intake_count_source_changes",
        "customers.lead_intake_count_source_truncates",
        "referrals.lead_intake_count_referral_deletes",
        "referrals.lead_intake_count_referral_inserts",
        "referrals.lead_intake_count_referral_updates",
        "referrals.lead_intake_count_referrals_truncate",
      ]);
    });

    it("records every migration in _prisma_migrations as prisma migrate deploy does, and a rerun applies nothing", async () => {
      const expected = (await readMigrations()).map((m) => ({
        migration_name: m.name,
        checksum: m.checksum,
        finished: true,
        not_rolled_back: true,
        applied_steps_count: 1,
      }));
      expect(await migrationRecords(db.sql)).toEqual(expected);
      expect(await migrate(db.url)).toEqual([]);
      expect(await migrationRecords(db.sql)).toEqual(expected);
      expect(await snapshotRows(db.sql)).toEqual(rowsBefore);
    });

    it("registers the host's existing sources by normalised name, the oldest of two spellings winning", async () => {
      expect(await sourceNames(db.sql)).toEqual([
        { key: "facebook ads", customer_id: HOST.facebook },
        { key: "roadshow kl", customer_id: HOST.roadshowOld },
        { key: "roadshow penang", customer_id: HOST.penang },
        { key: "walk in", customer_id: HOST.walkIn },
      ]);
    });

    it("counts the host's existing records per referrer", async () => {
      const { rows } = await db.sql.query(
        "SELECT customer_id, sum(total)::int AS total FROM lead_referrer_counts GROUP BY customer_id ORDER BY customer_id",
      );
      expect(rows).toEqual(
        [HOST.person, HOST.roadshowNew, HOST.facebook, HOST.roadshowOld]
          .sort()
          .map((id) => ({ customer_id: id, total: 1 })),
      );
    });
  });

  describe(`the service on the installed database (${layout} layout)`, () => {
    beforeAll(() => {
      // Before the service's first request: its client reads DATABASE_URL once, on first use.
      process.env.DATABASE_URL = db.url;
    });

    it("lists the host's sources, and creates configured sources only where the host has none under any spelling", async () => {
      const res = await call("GET", "/api/leads/sources");
      expect(res.status).toBe(200);
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      const host = [
        { id: HOST.facebook, name: "FaceBook  Ads", type: "ads" },
        { id: HOST.roadshowOld, name: "Roadshow KL", type: "other" },
        { id: HOST.roadshowNew, name: "  roadshow   KL ", type: "other" },
        { id: HOST.walkIn, name: "Walk In", type: "other" },
        { id: HOST.penang, name: "Roadshow\tPenang\n", type: "other" },
      ];
      const configured = res.body.sources.filter((s: { id: string }) => !host.some((h) => h.id === s.id));
      expect([...res.body.sources].sort(byName)).toEqual([...host, ...configured].sort(byName));
      expect(configured.map(({ name, type }: { name: string; type: string }) => ({ name, type })).sort(byName)).toEqual(
        [
          { name: "Google Ads", type: "ads" },
          { name: "TikTok Ads", type: "ads" },
          { name: "Website Form", type: "other" },
        ],
      );
      for (const s of configured) expect(s.id).toMatch(/^src_/);
      expect(res.body.ads.map((s: { name: string }) => s.name).sort()).toEqual([
        "FaceBook  Ads",
        "Google Ads",
        "TikTok Ads",
      ]);
      expect((await sourceNames(db.sql)).map((r) => r.key)).toEqual(KEYS_AFTER_CONFIGURED_SOURCES);
    });

    const created: number[] = [];

    it("creates leads naming existing host sources by name (any spelling) or id, and an existing person", async () => {
      const customersBefore = (await rowCounts(db.sql)).customers;
      const cases: [unknown, { customerId: string; name: string; type: string }][] = [
        ["roadshow   kl", { customerId: HOST.roadshowOld, name: "Roadshow KL", type: "source" }],
        ["Facebook Ads", { customerId: HOST.facebook, name: "FaceBook  Ads", type: "source" }],
        [HOST.roadshowNew, { customerId: HOST.roadshowNew, name: "  roadshow   KL ", type: "source" }],
        ["Roadshow Penang", { customerId: HOST.penang, name: "Roadshow\tPenang\n", type: "source" }],
        [{ customerId: HOST.person }, { customerId: HOST.person, name: "Encik Rahman", type: "person" }],
      ];
      for (const [i, [referrer, expected]] of cases.entries()) {
        const res = await post({ leadName: `New Lead ${i + 1}`, leadMobileNumber: `012-345 678${i}`, referrer });
        expect(res.status, res.text).toBe(201);
        expect(res.body.lead).toMatchObject({ referrer: expected, status: "Pending", assignedAgentId: null });
        expect(res.body.lead.referralId).toBeGreaterThan(HOST.referrals.duplicateSource);
        created.push(res.body.lead.referralId);
      }
      // Each lead added its lead customer and no source account.
      expect((await rowCounts(db.sql)).customers).toBe(customersBefore + cases.length);
    });

    it("GET /api/leads lists old and new source leads together, legacy values passed through", async () => {
      const res = await call("GET", "/api/leads");
      expect(res.status).toBe(200);
      const sourceCreated = created.slice(0, 4); // the fifth names a person
      const old = [HOST.referrals.duplicateSource, HOST.referrals.legacy, HOST.referrals.contacted];
      expect(res.body.leads.map((l: { referralId: number }) => l.referralId)).toEqual([
        ...sourceCreated.reverse(),
        ...old,
      ]);
      expect(res.body.pagination).toEqual({ total: 7, limit: 100, offset: 0, hasMore: false });

      const listed = (id: number) => res.body.leads.find((l: { referralId: number }) => l.referralId === id);
      expect(listed(HOST.referrals.contacted)).toEqual({
        referralId: HOST.referrals.contacted,
        leadCustomerId: "cus_host_lead1",
        leadName: "Old Lead One",
        leadMobileNumber: "60121234567",
        referrer: { customerId: HOST.facebook, name: "FaceBook  Ads", type: "source" },
        assignedAgentId: hasAssignment ? "plat-siti" : null,
        status: "Contacted",
        leadState: "Johor",
        leadCity: "JB",
        leadAddress: "No 2",
        relationship: "Friend",
        projectType: "RESIDENTIAL (2%)",
        remark: "call after 5",
        createdAt: "2021-01-01T00:00:00.123Z",
      });
      expect(listed(HOST.referrals.legacy)).toEqual({
        referralId: HOST.referrals.legacy,
        leadCustomerId: null,
        leadName: "Legacy Lead Without Customer",
        leadMobileNumber: null,
        referrer: { customerId: HOST.roadshowOld, name: "Roadshow KL", type: "source" },
        assignedAgentId: null,
        status: "NEW LEAD",
        leadState: "",
        leadCity: "",
        leadAddress: "",
        relationship: "",
        projectType: "",
        remark: "",
        createdAt: null,
      });
      expect(listed(HOST.referrals.duplicateSource)).toMatchObject({
        referrer: { customerId: HOST.roadshowNew, name: "  roadshow   KL ", type: "source" },
        status: "Rejected",
        leadMobileNumber: null,
        leadState: "Penang",
        leadCity: "",
        projectType: "",
      });

      const filtered = await call("GET", `/api/leads?referrer=${encodeURIComponent("ROADSHOW KL")}`);
      expect(filtered.body.leads.map((l: { referralId: number }) => l.referralId)).toEqual([
        created[0],
        HOST.referrals.legacy,
      ]);
    });

    it("GET /api/leads/agents lists the assignable users of this layout", async () => {
      const res = await call("GET", "/api/leads/agents");
      expect(res.status).toBe(200);
      const agent = (numericId: number, platformId: string, name: string, accessLevels: string[]) => ({
        id: platformId,
        name,
        platformId,
        numericId,
        accessLevels,
      });
      const expected =
        layout === "legacy"
          ? // No access-level column: every user with a platform id, with no access levels.
            [
              agent(HOST.users.mona, "plat-mona", "Mona Manager", []),
              agent(HOST.users.nullLevels, "plat-null", "Null Levels", []),
              agent(HOST.users.ravi, "plat-ravi", "Ravi Kumar", []),
              agent(HOST.users.siti, "plat-siti", "Siti Sales", []),
            ]
          : [
              agent(HOST.users.ravi, "plat-ravi", "Ravi Kumar", ["manager", "sales"]),
              agent(HOST.users.siti, "plat-siti", "Siti Sales", ["sales"]),
            ];
      expect(res.body).toEqual({ agents: expected });
    });

    it("assigns leads as this layout allows", async () => {
      const body = { leadName: "Assigned Lead", leadMobileNumber: "0112223333", referrer: "Walk In" };
      const send = async (assignedAgentId: string | number) => post({ ...body, assignedAgentId });
      // A user without a platform id is never an agent.
      expect((await send(HOST.users.noPlatform)).body.code).toBe("INVALID_AGENT");
      if (layout === "normal") {
        const res = await send("plat-ravi");
        expect(res.status, res.text).toBe(201);
        expect(res.body.lead).toMatchObject({ status: "Assigned", assignedAgentId: "plat-ravi" });
        expect((await send(HOST.users.mona)).body.code).toBe("INVALID_AGENT");
        expect((await send("plat-null")).body.code).toBe("INVALID_AGENT");
      } else if (layout === "legacy") {
        const res = await send("plat-mona");
        expect(res.status, res.text).toBe(201);
        expect(res.body.lead).toMatchObject({ status: "Assigned", assignedAgentId: "plat-mona" });
        const byNumber = await send(String(HOST.users.nullLevels));
        expect(byNumber.status, byNumber.text).toBe(201);
        expect(byNumber.body.lead).toMatchObject({ status: "Assigned", assignedAgentId: "plat-null" });
      } else {
        const before = await rowCounts(db.sql);
        const res = await send("plat-siti");
        expect(res.status).toBe(503);
        expect(res.body.code).toBe("ASSIGNMENT_NOT_CONFIGURED");
        expect((await send("plat-mona")).body.code).toBe("INVALID_AGENT");
        expect(await rowCounts(db.sql)).toEqual(before);
        const unassigned = await post(body);
        expect(unassigned.status, unassigned.text).toBe(201);
        expect(unassigned.body.lead).toMatchObject({ status: "Pending", assignedAgentId: null });
      }
    });

    if (layout === "normal") {
      it("the host's dashboards show old and new records together", async () => {
        const host = hostClient(db.url);
        try {
          const manager = await managerView(host);
          expect(manager.map((r) => r.id).sort((a, b) => a - b)).toEqual(
            [1, 2, 3, 4, ...created, created[created.length - 1] + 1].sort((a, b) => a - b),
          );
          const siti = await agentView(host, HOST.users.siti);
          expect(siti.map((r) => r.id)).toEqual([HOST.referrals.contacted]);
          expect(siti[0].preferredAgent?.platformId).toBe("plat-ravi");
          const ravi = await agentView(host, HOST.users.ravi);
          expect(ravi).toHaveLength(1);
          expect(ravi[0]).toMatchObject({ status: "Assigned", preferredAgentId: null, referrer: { id: HOST.walkIn } });
          expect(ravi[0].auditEntries).toHaveLength(1);
          // The old record keeps its own audit trail; the module added none to it.
          expect(manager.find((r) => r.id === HOST.referrals.contacted)!.auditEntries).toHaveLength(2);
        } finally {
          await host.$disconnect();
        }
      });
    }

    it("after all that, every row the host had is still exactly as it was", async () => {
      expect(await currentRowsOf(db.sql, rowsBefore)).toEqual(rowsBefore);
    });
  });
}
