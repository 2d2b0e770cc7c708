import type pg from "pg";
import { MAX_ISSUES, MAX_PATH_CHARS } from "@/lib/api/errors";
import { rowCounts } from "./db";
import { describeCase, type HostileCase } from "./hostile-cases";
import { agentsShape, checkEnvelope, createdShape, listShape, sourcesShape, type RawResponse } from "./hostile";
import { cleanSourceName, sourceKey } from "@/lib/leads/source-name";
import type { Expected, ExpectedLead, World } from "./oracle";

export interface CreatedRecord {
  referralId: number;
  leadCustomerId: string;
  referrerId: string;
  leadName: string;
}

/**
 * Checks each answer against its case and keeps the tally of a fuzz run: how
 * many requests, which outcomes, every lead created (to account for every row
 * afterwards) and the source account each new name got.
 */
export class FuzzLedger {
  requests = 0;
  readonly outcomes = new Map<string, number>();
  readonly msByOutcome = new Map<string, number>();
  readonly created: CreatedRecord[] = [];
  readonly sourceIdByKey = new Map<string, string>();
  readonly personal = new Set<string>();

  constructor(private readonly world: World) {}

  verify(c: HostileCase, response: RawResponse): void {
    this.requests++;
    for (const value of c.personal) this.personal.add(value);
    try {
      const body = checkEnvelope(response);
      const outcome = response.status === 200 || response.status === 201 ? String(response.status) : body.code;
      this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
      this.msByOutcome.set(outcome, (this.msByOutcome.get(outcome) ?? 0) + response.ms);
      if (response.status === 201) this.record(body);
      if (!c.expected.outcomes.includes(outcome))
        throw new Error(`expected ${c.expected.outcomes.join(" or ")}, got ${outcome}`);
      if (outcome === "INVALID_INPUT") this.checkIssues(body.issues, c.expected.invalidPaths ?? []);
      if (outcome === "201") this.checkCreated(body, c.expected.lead!);
      if (outcome === "200") this.checkRead(c.request.path, body, c.expected);
    } catch (error) {
      throw new Error(
        `${(error as Error).message}\n${describeCase(c)}\nanswer ${response.status}: ${response.text.slice(0, 1000)}`,
      );
    }
  }

  private record(body: any): void {
    const lead = body?.lead;
    if (typeof lead?.referralId !== "number") return;
    this.created.push({
      referralId: lead.referralId,
      leadCustomerId: lead.leadCustomerId,
      referrerId: lead.referrer?.customerId,
      leadName: lead.leadName,
    });
  }

  private checkIssues(issues: { path: string }[], allowed: string[]): void {
    const under = (path: string) => allowed.some((f) => path === f || (f !== "" && path.startsWith(`${f}.`)));
    // A path cut to MAX_PATH_CHARS ends in "…": it is covered by what it begins.
    const cut = (path: string) => path.endsWith("…") && path.length >= MAX_PATH_CHARS - 1;
    const covered = (path: string) =>
      under(path) ||
      (cut(path) &&
        allowed.some((f) => `${f}.`.startsWith(path.slice(0, -1)) || path.slice(0, -1).startsWith(`${f}.`)));
    // Decision 14: the first MAX_ISSUES, then one more at "" counting the rest.
    if (issues.length > MAX_ISSUES + 1) throw new Error(`${issues.length} issues, more than ${MAX_ISSUES} and a count`);
    const listed = issues.length > MAX_ISSUES ? issues.slice(0, MAX_ISSUES) : issues;
    const stray = listed.filter((i) => !covered(i.path));
    if (stray.length)
      throw new Error(`issues at ${JSON.stringify(stray)}, expected only under ${JSON.stringify(allowed)}`);
  }

  private checkCreated(body: unknown, expected: ExpectedLead): void {
    const { lead } = createdShape.parse(body);
    const want = {
      leadName: expected.leadName,
      leadMobileNumber: expected.leadMobileNumber,
      assignedAgentId: expected.assignedAgentId,
      status: expected.assignedAgentId ? "Assigned" : "Pending",
      referrerType: expected.referrer.type,
    };
    const got = { ...lead, referrerType: lead.referrer.type };
    for (const [k, v] of Object.entries(want)) {
      if (got[k as keyof typeof got] !== v)
        throw new Error(`${k}: expected ${JSON.stringify(v)}, got ${JSON.stringify(got[k as keyof typeof got])}`);
    }
    const { customerId, sourceKey: key, newName } = expected.referrer;
    if (customerId !== undefined && lead.referrer.customerId !== customerId) {
      throw new Error(`referrer ${lead.referrer.customerId}, expected ${customerId}`);
    }
    if (key !== undefined) {
      // A new name: the first success creates the account, every case or spacing variant reuses it.
      const known = this.sourceIdByKey.get(key);
      if (known !== undefined && known !== lead.referrer.customerId) {
        throw new Error(
          `source name ${JSON.stringify(key)} has two accounts: ${known} and ${lead.referrer.customerId}`,
        );
      }
      this.sourceIdByKey.set(key, lead.referrer.customerId);
      // Its name is the variant sent first, cleaned (trimmed, single spaces), whichever request that was.
      const { name } = lead.referrer;
      if (sourceKey(name) !== key || name !== cleanSourceName(name)) {
        throw new Error(`source for ${JSON.stringify(newName)} named ${JSON.stringify(name)}`);
      }
    }
  }

  private checkRead(path: string, body: unknown, expected: Expected): void {
    const pathname = new URL(path, "http://x").pathname;
    if (pathname === "/api/leads") {
      const { leads, pagination } = listShape.parse(body);
      const page = expected.page!;
      if (pagination.limit !== page.limit || pagination.offset !== page.offset)
        throw new Error("pagination does not echo limit and offset");
      if (leads.length > page.limit) throw new Error("more leads than the limit");
      if (pagination.hasMore !== page.offset + leads.length < pagination.total)
        throw new Error("hasMore disagrees with total");
      const ids = leads.map((l) => l.referralId);
      if (ids.some((id, i) => i > 0 && id >= ids[i - 1])) throw new Error("not in descending referralId order");
      if (page.referrer !== undefined && new Set(leads.map((l) => l.referrer.customerId)).size > 1)
        throw new Error("filter returned several sources");
    } else if (pathname.endsWith("agents")) {
      const ids = agentsShape.parse(body).agents.map((a) => a.numericId);
      for (const agent of this.world.agents) if (!ids.includes(agent.id)) throw new Error(`agent ${agent.id} missing`);
      for (const user of this.world.ineligible)
        if (ids.includes(user.id)) throw new Error(`ineligible user ${user.id} listed`);
    } else {
      const { sources, ads } = sourcesShape.parse(body);
      const ids = new Set(sources.map((s) => s.id));
      for (const id of this.world.sourceIds) if (!ids.has(id)) throw new Error(`source ${id} missing`);
      const expectedAds = sources.filter((s) => s.type === "ads");
      if (JSON.stringify(ads) !== JSON.stringify(expectedAds)) throw new Error("ads is not the ads subset of sources");
    }
  }

  summary(): string {
    const outcomes = [...this.outcomes]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n} (${Math.round((this.msByOutcome.get(k) ?? 0) / n)} ms)`)
      .join(", ");
    return `${this.requests} requests (${outcomes}); ${this.created.length} leads created`;
  }
}

/**
 * Users and a person account for requests to name, then the world as the database holds it (after the service's first
 * request created the configured sources): the configured sources, eligible agents and the users that exist but may not
 * be assigned.
 */
export async function seedWorld(sql: pg.Pool, run: string): Promise<World> {
  const sources = await sql.query<{ id: string; name: string }>(`SELECT id, name FROM customers WHERE kind = 'source'`);
  if (!sources.rowCount) throw new Error("no source accounts yet: let the service answer one request first");
  await sql.query(
    `INSERT INTO users (platform_id, name, access_levels) VALUES
       ($1, 'Fuzz Agent One', '{sales}'), ($2, 'Fuzz Agent Two', '{admin,sales}'),
       ($3, 'Fuzz Admin', '{admin}'), (NULL, 'Fuzz No Platform', '{sales}')`,
    [`agent_${run}_1`, `agent_${run}_2`, `admin_${run}`],
  );
  await sql.query(
    `INSERT INTO customers (id, kind, name, mobile_number) VALUES ($1, 'person', 'Fuzz Person', '60129990000')`,
    [`cus_person_${run}`],
  );
  const persons = await sql.query<{ id: string; name: string }>(`SELECT id, name FROM customers WHERE kind = 'person'`);
  const users = await sql.query<{ id: number; platform_id: string | null; sales: boolean }>(
    `SELECT id, platform_id, 'sales' = ANY(access_levels) AS sales FROM users`,
  );
  return {
    sourcesByKey: new Map(sources.rows.map((s) => [sourceKey(s.name), s])),
    sourceIds: new Set(sources.rows.map((s) => s.id)),
    persons: new Map(persons.rows.map((p) => [p.id, p.name])),
    agents: users.rows.filter((u) => u.sales && u.platform_id).map((u) => ({ id: u.id, platformId: u.platform_id! })),
    ineligible: users.rows
      .filter((u) => !u.sales || !u.platform_id)
      .map((u) => ({ id: u.id, platformId: u.platform_id })),
  };
}

/**
 * After a fuzz run: every row the service writes is accounted for by a 201.
 * Each created lead has its customer, workflow record and audit entry; the only
 * other new rows are the accounts (and name keys) of new sources those leads
 * named. So no rejected request left anything behind.
 */
export async function accountForRows(
  sql: pg.Pool,
  before: Record<string, number>,
  ledger: FuzzLedger,
  world: World,
): Promise<string[]> {
  const problems: string[] = [];
  const after = await rowCounts(sql);
  const ids = ledger.created.map((c) => c.referralId);
  const newSources = new Set(
    ledger.created.map((c) => c.referrerId).filter((id) => id.startsWith("src_") && !world.sourceIds.has(id)),
  );
  const want = {
    customers: before.customers + ids.length + newSources.size,
    referrals: before.referrals + ids.length,
    audit_entries: before.audit_entries + ids.length,
    lead_source_names: before.lead_source_names + newSources.size,
    users: before.users,
  };
  if (JSON.stringify(after) !== JSON.stringify(want))
    problems.push(`rows ${JSON.stringify(after)}, expected ${JSON.stringify(want)}`);
  const { rows } = await sql.query<{
    id: number;
    lead_customer_id: string;
    referrer_customer_id: string;
    audits: number;
    lead_kind: string;
    lead_name: string;
  }>(
    `SELECT r.id, r.lead_customer_id, r.referrer_customer_id, r.lead_name,
            (SELECT count(*)::int FROM audit_entries a WHERE a.referral_id = r.id) AS audits,
            (SELECT c.kind FROM customers c WHERE c.id = r.lead_customer_id) AS lead_kind
     FROM referrals r WHERE r.id = ANY($1)`,
    [ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const c of ledger.created) {
    const row = byId.get(c.referralId);
    if (!row) problems.push(`referral ${c.referralId} missing`);
    else if (
      row.lead_customer_id !== c.leadCustomerId ||
      row.referrer_customer_id !== c.referrerId ||
      row.audits !== 1 ||
      row.lead_kind !== "person" ||
      row.lead_name !== c.leadName
    ) {
      problems.push(`referral ${c.referralId} does not match its 201: ${JSON.stringify(row)} vs ${JSON.stringify(c)}`);
    }
  }
  const keys = await sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM lead_source_names WHERE customer_id = ANY($1)`,
    [[...newSources]],
  );
  if (keys.rows[0].n !== newSources.size)
    problems.push(`${newSources.size} new sources but ${keys.rows[0].n} name keys`);
  return problems;
}
