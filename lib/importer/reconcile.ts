import { type Agent, type CreateLeadRequest, LeadsClient, LeadsClientError, type ListedLead } from "@/lib/client/index";
import { optionalFieldsOf } from "@/lib/leads/fields";
import { createLeadBody } from "@/lib/leads/schemas";

/**
 * Reconciliation: did an attempt whose outcome is unknown create its lead? It looks for a lead with exactly the
 * row's stored values, created after the row's first attempt (docs/operating.md, "Bulk importer").
 */

/**
 * `createdAt` comes from the database's clock, attempt times from the importer's; a
 * lead counts as "after the attempt began" if it is at most this much older, so a
 * clock skew below a minute cannot hide a created lead (and cause a duplicate).
 */
export const CLOCK_MARGIN_MS = 60_000;
const PAGE_SIZE = 500;

export interface Attempted {
  row: number;
  body: CreateLeadRequest;
  firstAttemptAt: string;
}

export type Verdict =
  | { row: number; verdict: "created"; lead: ListedLead }
  | { row: number; verdict: "absent" }
  | { row: number; verdict: "unreconcilable"; why: string };

/** A read needed for reconciliation failed; carries the outcome (status, code) of that read. */
export class ReconcileError extends Error {
  constructor(readonly outcome: { status: number | null; code: string | null; error: string }) {
    super(`Reconciliation could not read the service: ${outcome.error}`);
  }
}

interface Expected {
  row: number;
  since: number;
  filter: string;
  values: Partial<Record<keyof ListedLead, string | null>>;
}

/**
 * Verdicts for rows left at `intent` or `uncertain`. `claimed` holds the referralIds
 * already in the ledger; each lead found is claimed by one row only, so two identical
 * rows need two leads.
 */
export async function reconcile(client: LeadsClient, rows: Attempted[], claimed: Set<number>): Promise<Verdict[]> {
  if (!rows.length) return [];
  const sources = await read(client.listSources());
  const sourceIds = new Set(sources.sources.map((s) => s.id));
  const agents = rows.some((r) => r.body.assignedAgentId !== undefined) ? (await read(client.listAgents())).agents : [];

  const verdicts: Verdict[] = [];
  const expected: Expected[] = [];
  for (const { row, body, firstAttemptAt } of rows) {
    const parsed = createLeadBody.safeParse(body);
    // The service validates with this same schema: an invalid body was refused, nothing was created.
    if (!parsed.success) {
      verdicts.push({ row, verdict: "absent" });
      continue;
    }
    const lead = parsed.data;
    const filter = typeof lead.referrer === "string" ? lead.referrer : lead.referrer.customerId;
    if (typeof lead.referrer !== "string" && !sourceIds.has(filter)) {
      verdicts.push({
        row,
        verdict: "unreconcilable",
        why: "the referrer is a person (or unknown) account, whose leads GET /api/leads does not list",
      });
      continue;
    }
    const values: Expected["values"] = {
      leadName: lead.leadName,
      leadMobileNumber: lead.leadMobileNumber,
      ...optionalFieldsOf(lead),
    };
    // An agent that does not resolve is left out of the comparison rather than ruling a lead out.
    const agent = lead.assignedAgentId === undefined ? null : findAgent(agents, lead.assignedAgentId);
    if (agent !== undefined) values.assignedAgentId = agent;
    expected.push({ row, since: Date.parse(firstAttemptAt) - CLOCK_MARGIN_MS, filter, values });
  }

  const byFilter = new Map<string, Expected[]>();
  for (const e of expected) byFilter.set(e.filter, [...(byFilter.get(e.filter) ?? []), e]);
  for (const [filter, group] of byFilter) {
    const oldest = Math.min(...group.map((e) => e.since));
    const candidates: ListedLead[] = [];
    try {
      for await (const lead of client.leads({ referrer: filter, limit: PAGE_SIZE })) {
        const at = lead.createdAt === null ? null : Date.parse(lead.createdAt);
        // Newest first: once leads are older than every attempt, no later page can match.
        if (at !== null && at < oldest) break;
        if (at !== null && !claimed.has(lead.referralId)) candidates.push(lead);
      }
    } catch (error) {
      if (error instanceof LeadsClientError) throw new ReconcileError(error.outcome);
      throw error;
    }
    candidates.sort((a, b) => a.referralId - b.referralId);
    for (const e of group.sort((a, b) => a.row - b.row)) {
      const match = candidates.find(
        (lead) =>
          !claimed.has(lead.referralId) &&
          Date.parse(lead.createdAt!) >= e.since &&
          Object.entries(e.values).every(([field, value]) => lead[field as keyof ListedLead] === value),
      );
      if (match) claimed.add(match.referralId);
      verdicts.push(match ? { row: e.row, verdict: "created", lead: match } : { row: e.row, verdict: "absent" });
    }
  }
  return verdicts.sort((a, b) => a.row - b.row);
}

/** The platform id the service stores for an assignedAgentId (platform id, or numeric id as integer or string). */
function findAgent(agents: Agent[], id: string | number): string | undefined {
  const text = String(id);
  return (agents.find((a) => a.id === text) ?? agents.find((a) => String(a.numericId) === text))?.platformId;
}

async function read<T>(
  pending: Promise<{ outcome: string; data?: T; status: number | null; code: string | null; error: string | null }>,
): Promise<T> {
  const result = await pending;
  if (result.outcome === "ok") return result.data as T;
  throw new ReconcileError({ status: result.status, code: result.code, error: result.error ?? "failed" });
}
