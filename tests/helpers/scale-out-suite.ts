import { randomBytes } from "node:crypto";
import type pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { TEST_KEY } from "./api";
import { authorised, checkEnvelope, createdShape, listShape, sendRaw, stackTraceLines } from "./hostile";
import { sourceKey } from "@/lib/leads/source-name";
import { validLead } from "./lead";

/**
 * The scale-out attack, for any deployment of several server processes on one database
 * (tests/scale-out/scale-out.stress.ts: two processes, each with its own pool;
 * tests/scale-out/pooled.stress.ts: three behind HAProxy on PgBouncer): a few hundred POSTs
 * at once, then readers paging through the list while writers keep inserting.
 */
const CONCURRENT = Number(process.env.STRESS_CONCURRENT ?? 240);
const WRITERS = 8;
const WRITER_PAUSE_MS = 20;
const MAX_WRITES = 2_000;
/** A reader that has not reached the last page after this many has been outrun for good. */
const MAX_PAGES = 5_000;

export interface Deployment {
  /** A pool on the database, for arranging data and checking rows. */
  sql: pg.Pool;
  /** Two base URLs the requests alternate between: two processes, or the same load balancer twice. */
  targets: [string, string];
  /** Everything each server process printed so far. */
  outputs(): string[];
}

/** Registers the suite as a describe block; `deployment` is called in its beforeAll, after the file's own. */
export function scaleOutSuite(name: string, deployment: () => Deployment): void {
  let sql: pg.Pool;
  let targets: [string, string];
  const run = randomBytes(3).toString("hex");
  let facebook: { id: string; name: string };
  let person: string;
  let agents: { id: number; platformId: string }[];

  const NEW_SOURCES = ["Stress Expo", "Stress Roadshow", "Stress Mall Booth", "Stress Radio"].map((n) => `${n} ${run}`);
  const variants = (name: string) => [
    name,
    name.toLowerCase(),
    `  ${name.toUpperCase().replace(/ /g, "   ")} `,
    name.replace(/ /g, "  "),
  ];

  /** The i-th request of the mix: new-source variants, existing sources by name and id, object referrers, agents. */
  function leadFor(i: number) {
    const referrers: unknown[] = [
      ...NEW_SOURCES.flatMap(variants),
      "Facebook Ads",
      "  facebook   ADS ",
      facebook.id,
      { customerId: facebook.id },
      { customerId: person },
    ];
    const agentChoices: (string | number | undefined)[] = [
      undefined,
      agents[0].platformId,
      agents[1].id,
      String(agents[0].id),
    ];
    const lead: Record<string, unknown> = validLead({
      leadName: `Stress Lead ${run} ${i}`,
      leadMobileNumber: `011-${String(i % 10_000).padStart(4, "0")} ${String(Math.floor(i / 10_000) % 10_000).padStart(4, "0")}`,
      referrer: referrers[i % referrers.length],
    });
    const agent = agentChoices[Math.floor(i / referrers.length) % agentChoices.length];
    if (agent !== undefined) lead.assignedAgentId = agent;
    return lead;
  }

  interface Created {
    referralId: number;
    leadCustomerId: string;
    referrer: { customerId: string; name: string; type: string };
    assignedAgentId: string | null;
  }

  /** Everything GET /api/leads lists, following the spec: offset += limit until hasMore is false. */
  async function readAll(baseUrl: string, limit: number, referrer?: string): Promise<{ ids: number[]; pages: number }> {
    const ids: number[] = [];
    let pages = 0;
    for (let offset = 0; ; offset += limit) {
      const filter = referrer ? `&referrer=${encodeURIComponent(referrer)}` : "";
      const response = await sendRaw(authorised("GET", `/api/leads?limit=${limit}&offset=${offset}${filter}`), baseUrl);
      expect(response.status).toBe(200);
      const { leads, pagination } = listShape.parse(checkEnvelope(response));
      pages++;
      const page = leads.map((l) => l.referralId);
      expect(page).toEqual([...page].sort((a, b) => b - a));
      ids.push(...page);
      if (!pagination.hasMore) return { ids, pages };
      if (pages >= MAX_PAGES) throw new Error(`still no last page after ${pages} pages of ${limit}`);
    }
  }

  describe(name, () => {
    beforeAll(async () => {
      ({ sql, targets } = deployment());
      const sources = checkEnvelope(await sendRaw(authorised("GET", "/api/leads/sources"), targets[0]));
      facebook = sources.sources.find((s: { name: string }) => s.name === "Facebook Ads");
      person = `cus_stress_${run}`;
      await sql.query(`INSERT INTO customers (id, kind, name) VALUES ($1, 'person', 'Stress Introducer')`, [person]);
      const { rows } = await sql.query<{ id: number; platform_id: string }>(
        `INSERT INTO users (platform_id, name, access_levels)
         VALUES ($1, 'Stress Agent A', '{sales}'), ($2, 'Stress Agent B', '{sales,admin}') RETURNING id, platform_id`,
        [`stress_a_${run}`, `stress_b_${run}`],
      );
      agents = rows.map((r) => ({ id: r.id, platformId: r.platform_id }));
    }, 180_000);

    let created: Created[] = [];

    it(`creates ${CONCURRENT} leads sent at once, each whole, with one account per new source name`, async () => {
      const started = Date.now();
      const responses = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) =>
          sendRaw(authorised("POST", "/api/leads", leadFor(i)), targets[i % 2], 120_000),
        ),
      );
      const seconds = (Date.now() - started) / 1000;
      const statuses = responses.map((r) => r.status);
      expect(
        statuses.filter((s) => s !== 201),
        responses.find((r) => r.status !== 201)?.text,
      ).toEqual([]);
      created = responses.map((r) => createdShape.parse(checkEnvelope(r)).lead);
      console.log(
        `${name}: ${CONCURRENT} concurrent POSTs, all 201 in ${seconds.toFixed(1)} s ` +
          `(slowest ${Math.max(...responses.map((r) => r.ms))} ms)`,
      );

      expect(new Set(created.map((c) => c.referralId)).size).toBe(CONCURRENT);
      expect(new Set(created.map((c) => c.leadCustomerId)).size).toBe(CONCURRENT);

      // Each new name: one account in the database, and every variant's answer names that account.
      for (const name of NEW_SOURCES) {
        const { rows } = await sql.query<{ id: string }>(
          `SELECT c.id FROM customers c JOIN lead_source_names k ON k.customer_id = c.id WHERE k.key = $1`,
          [sourceKey(name)],
        );
        const all = await sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM customers WHERE kind = 'source' AND lead_intake_source_key(name) = $1`,
          [sourceKey(name)],
        );
        expect(rows.length).toBe(1);
        expect(all.rows[0].n).toBe(1);
        const answered = new Set(
          created
            .filter(
              (_, i) =>
                typeof leadFor(i).referrer === "string" && sourceKey(leadFor(i).referrer as string) === sourceKey(name),
            )
            .map((c) => c.referrer.customerId),
        );
        expect([...answered]).toEqual([rows[0].id]);
      }

      // Every 201 has all its rows: the lead customer, the workflow record with its referrer and agent, one audit
      // entry.
      const { rows } = await sql.query<{
        id: number;
        lead_customer_id: string;
        referrer_customer_id: string;
        platform_id: string | null;
        kind: string;
        audits: number;
      }>(
        `SELECT r.id, r.lead_customer_id, r.referrer_customer_id, u.platform_id, c.kind,
                (SELECT count(*)::int FROM audit_entries a WHERE a.referral_id = r.id) AS audits
         FROM referrals r JOIN customers c ON c.id = r.lead_customer_id LEFT JOIN users u ON u.id = r.assigned_agent_id
         WHERE r.id = ANY($1)`,
        [created.map((c) => c.referralId)],
      );
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const c of created) {
        expect(byId.get(c.referralId)).toEqual({
          id: c.referralId,
          lead_customer_id: c.leadCustomerId,
          referrer_customer_id: c.referrer.customerId,
          platform_id: c.assignedAgentId,
          kind: "person",
          audits: 1,
        });
      }
    }, 600_000);

    it("lists each source-referred lead exactly once and no person-referred one, through either target", async () => {
      const bySource = created.filter((c) => c.referrer.type === "source").map((c) => c.referralId);
      const byPerson = created.filter((c) => c.referrer.type === "person").map((c) => c.referralId);
      expect(byPerson.length).toBeGreaterThan(0);
      for (const [target, limit] of [
        [targets[0], 500],
        [targets[1], 37],
      ] as const) {
        const { ids } = await readAll(target, limit);
        const counts = new Map<number, number>();
        for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
        expect(bySource.filter((id) => counts.get(id) !== 1)).toEqual([]);
        expect(byPerson.filter((id) => counts.has(id))).toEqual([]);
      }
    });

    it("lets a reader following the spec see every lead that existed when it started, while writers insert", async () => {
      // A longer list to page through: bulk rows for two sources, as a host's history would be.
      const google = checkEnvelope(await sendRaw(authorised("GET", "/api/leads/sources"), targets[1])).sources.find(
        (s: { name: string }) => s.name === "Google Ads",
      ).id;
      await sql.query(
        `INSERT INTO referrals (referrer_customer_id, lead_name, mobile_number, status, relationship, project_type)
         SELECT CASE WHEN g % 3 = 0 THEN $1 ELSE $2 END, 'Bulk ' || g, '60120000000', 'Pending', 'Other', 'OTHERS'
         FROM generate_series(1, 1500) g`,
        [google, facebook.id],
      );
      const existing = async (referrer?: string) => {
        const { rows } = await sql.query<{ id: number }>(
          `SELECT r.id FROM referrals r JOIN customers c ON c.id = r.referrer_customer_id AND c.kind = 'source'
           WHERE $1::text IS NULL OR c.id = $1`,
          [referrer ?? null],
        );
        return rows.map((r) => r.id);
      };
      const before = { all: await existing(), google: await existing(google) };

      // Writers on both processes while the readers page, up to MAX_WRITES. Offset paging only
      // moves forward by limit minus the inserts made meanwhile: inserts without end can keep a
      // small-limit reader from ever reaching the last page (see the report), so the total is bounded.
      let writing = true;
      let written = 0;
      let failedWrites = 0;
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = 0; writing && written + failedWrites < MAX_WRITES; i++) {
          const response = await sendRaw(
            authorised("POST", "/api/leads", leadFor(10_000 + w * 100_000 + i)),
            targets[(w + i) % 2],
          );
          if (response.status === 201) written++;
          else failedWrites++;
          await new Promise((resolve) => setTimeout(resolve, WRITER_PAUSE_MS));
        }
      });
      const readers = [
        { target: targets[0], limit: 7, referrer: undefined, want: before.all },
        { target: targets[1], limit: 100, referrer: undefined, want: before.all },
        { target: targets[0], limit: 500, referrer: undefined, want: before.all },
        { target: targets[1], limit: 13, referrer: "google ads", want: before.google },
      ];
      let results;
      try {
        results = await Promise.all(
          readers.map(async (r) => ({ ...r, ...(await readAll(r.target, r.limit, r.referrer)) })),
        );
      } finally {
        writing = false;
        await Promise.allSettled(writers);
      }

      for (const r of results) {
        const seen = new Set(r.ids);
        const missing = r.want.filter((id) => !seen.has(id));
        console.log(
          `paging under load: limit ${r.limit}${r.referrer ? ` referrer "${r.referrer}"` : ""}: ${r.pages} pages, ` +
            `${seen.size} distinct of ${r.ids.length} listed, ${r.want.length} existed before, ${missing.length} missed`,
        );
        expect(missing).toEqual([]);
      }
      console.log(
        `paging under load: ${written} leads inserted meanwhile by ${WRITERS} writers, ${failedWrites} failed`,
      );
      expect(failedWrites).toBe(0);
      expect(written).toBeGreaterThan(0);
    }, 600_000);

    it("kept the key, the leads' personal data and stack traces out of every process's output", () => {
      for (const output of deployment().outputs()) {
        expect(output).not.toContain(TEST_KEY);
        expect(output).not.toContain(`Stress Lead ${run}`);
        expect(stackTraceLines(output)).toEqual([]);
      }
    });
  });
}
