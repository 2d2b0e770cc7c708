import { setTimeout as sleep } from "node:timers/promises";
import { ERROR_STATUS } from "@/lib/api/errors";
import { type Exchange, exchange } from "@/lib/client/http";
import { responseSchemas } from "@/lib/openapi/schemas";
import type {
  CreateLeadRequest,
  ErrorCode,
  Failed,
  GetOutcome,
  Issue,
  ListedLead,
  ListLeadsQuery,
  OperationId,
  PostOutcome,
} from "@/lib/client/types";

export interface RetryPolicy {
  /** Attempts of one GET, the first included. */
  maxAttempts: number;
  /** Cap of the first backoff; each later one doubles, up to maxDelayMs. Full jitter: a random wait below the cap. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Total time one GET may take, attempts and waits included. */
  deadlineMs: number;
}

export interface ClientOptions {
  /** e.g. http://localhost:3000 */
  baseUrl: string;
  /** The shared bearer key (LEADS_API_KEY). */
  apiKey: string;
  /** Timeout of one attempt (AbortSignal.timeout). Default 10 s. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
}

export interface CallOptions {
  /** Aborts the call (and a GET's retries). */
  signal?: AbortSignal;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 5_000, deadlineMs: 30_000 };
const DEFAULT_TIMEOUT_MS = 10_000;

/** 503 codes that need the administrator: retrying cannot help (spec, Errors, retry rules). */
const ADMINISTRATOR_CODES: ReadonlySet<string> = new Set(["API_NOT_CONFIGURED", "ASSIGNMENT_NOT_CONFIGURED"]);

/** The documented body of each GET's 200 answer: a 200 that does not match is unreadable, like one that is not JSON. */
const OK_BODIES = {
  listLeads: ["ListLeadsResponse", responseSchemas.ListLeadsResponse],
  listSources: ["SourcesResponse", responseSchemas.SourcesResponse],
  listAgents: ["AgentsResponse", responseSchemas.AgentsResponse],
} as const;

/** Thrown by the `leads()` iterator when a page cannot be read; carries that page's outcome. */
export class LeadsClientError extends Error {
  constructor(readonly outcome: Exclude<GetOutcome<"listLeads">, { outcome: "ok" }>) {
    super(`GET /api/leads ${outcome.outcome}: ${outcome.error}`);
    this.name = "LeadsClientError";
  }
}

interface ErrorFields<Code> {
  code: Code | null;
  error: string;
  issues: Issue[];
}

/** The documented error body of a response, if it is one: a known code that belongs to this status. */
function errorFields<Code>(status: number, body: unknown): ErrorFields<Code> {
  const b = (body ?? {}) as { code?: unknown; error?: unknown; issues?: unknown };
  const known = typeof b.code === "string" && (ERROR_STATUS as Record<string, number>)[b.code] === status;
  return {
    code: known ? (b.code as Code) : null,
    error: known && typeof b.error === "string" ? b.error : `HTTP ${status}`,
    issues: known && Array.isArray(b.issues) ? (b.issues as Issue[]) : [],
  };
}

/** A response that says the server did nothing: any 4xx, or a 503 that needs the administrator. */
function isRefusal(status: number, code: string | null): boolean {
  return (status >= 400 && status < 500) || (status === 503 && code !== null && ADMINISTRATOR_CODES.has(code));
}

/**
 * A typed client of the Lead Intake Service: one method per operation, outcomes as
 * values (never thrown), the contract's retry rules built in. GET is retried on
 * transport errors and transient 5xx with jittered exponential backoff inside a total
 * deadline; POST is sent exactly once and anything in between success and a refusal
 * is `uncertain`, for the caller to reconcile (lib/importer does).
 */
export class LeadsClient {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl;
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
  }

  /** POST /api/leads, sent exactly once. */
  async createLead(body: CreateLeadRequest, options: CallOptions = {}): Promise<PostOutcome<"createLead">> {
    type Code = ErrorCode<"createLead">;
    const answer = await exchange({
      method: "POST",
      url: new URL("/api/leads", this.baseUrl),
      apiKey: this.apiKey,
      body,
      timeoutMs: this.timeoutMs,
      signal: options.signal,
    });
    if (answer.kind === "failure") {
      const base = { status: null, code: null, issues: [], requestId: null, error: answer.message };
      if (answer.reason === "refused") return { outcome: "unsent", ...base };
      return { outcome: "uncertain", reason: answer.reason === "timeout" ? "timeout" : "connection", ...base };
    }
    const { status, body: json, requestId, retryAfter } = answer;
    if (status === 201) {
      const lead = (json as { lead?: { referralId?: unknown } } | undefined)?.lead;
      if (typeof lead?.referralId === "number") {
        return { outcome: "ok", status, data: json as { lead: never }, code: null, error: null, issues: [], requestId };
      }
      return { outcome: "uncertain", reason: "bad-response", status, code: null, error: "Unreadable 201 body", issues: [], requestId };
    }
    const fields = errorFields<Code>(status, json);
    if (status === 429 && retryAfter !== null && /^[0-9]{1,6}$/.test(retryAfter)) {
      return { outcome: "rejected", status, requestId, ...fields, retryAfterSeconds: Number(retryAfter) };
    }
    if (isRefusal(status, fields.code)) return { outcome: "rejected", status, requestId, ...fields };
    return { outcome: "uncertain", reason: "server-error", status, requestId, ...fields };
  }

  /** GET /api/leads: one page. */
  listLeads(query: ListLeadsQuery = {}, options: CallOptions = {}): Promise<GetOutcome<"listLeads">> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    return this.get("listLeads", `/api/leads${params.size ? `?${params}` : ""}`, options);
  }

  /** GET /api/leads/sources */
  listSources(options: CallOptions = {}): Promise<GetOutcome<"listSources">> {
    return this.get("listSources", "/api/leads/sources", options);
  }

  /** GET /api/leads/agents */
  listAgents(options: CallOptions = {}): Promise<GetOutcome<"listAgents">> {
    return this.get("listAgents", "/api/leads/agents", options);
  }

  /**
   * Every lead of GET /api/leads (optionally of one source), page after page until
   * `hasMore` is false, each `referralId` once: inserts while paging shift offsets and
   * repeat leads on the next page (spec, GET rules 5-6). Throws LeadsClientError when
   * a page cannot be read, or when a page says `hasMore` yet brings no lead not already
   * listed: paging on could then go on for ever (it takes `limit` inserts between two
   * page reads for a real server to do this).
   */
  async *leads(query: Omit<ListLeadsQuery, "offset"> = {}, options: CallOptions = {}): AsyncGenerator<ListedLead> {
    const seen = new Set<number>();
    for (let offset = 0; ; ) {
      const page = await this.listLeads({ ...query, offset }, options);
      if (page.outcome !== "ok") throw new LeadsClientError(page);
      const before = seen.size;
      for (const lead of page.data.leads) {
        if (seen.has(lead.referralId)) continue;
        seen.add(lead.referralId);
        yield lead;
      }
      if (!page.data.pagination.hasMore) return;
      if (seen.size === before) {
        const error = `GET /api/leads said hasMore at offset ${offset} but listed no new lead; paging stopped`;
        throw new LeadsClientError({ outcome: "failed", reason: "bad-response", status: page.status, code: null, error, issues: [], requestId: page.requestId, attempts: 1 });
      }
      offset += page.data.pagination.limit;
    }
  }

  private async get<Op extends Exclude<OperationId, "createLead">>(
    operation: Op,
    pathAndQuery: string,
    options: CallOptions,
  ): Promise<GetOutcome<Op>> {
    type Code = ErrorCode<Op>;
    const deadline = Date.now() + this.retry.deadlineMs;
    for (let attempt = 1; ; attempt++) {
      const answer: Exchange = await exchange({
        method: "GET",
        url: new URL(pathAndQuery, this.baseUrl),
        apiKey: this.apiKey,
        timeoutMs: Math.max(1, Math.min(this.timeoutMs, deadline - Date.now())),
        signal: options.signal,
      });
      let failed: Failed<Code>;
      if (answer.kind === "failure") {
        const reason = answer.reason === "refused" ? "connection" : answer.reason;
        failed = { outcome: "failed", reason, status: null, code: null, error: answer.message, issues: [], requestId: null, attempts: attempt };
        if (reason === "aborted") return failed;
      } else {
        const { status, body, requestId } = answer;
        if (status === 200) {
          const [name, schema] = OK_BODIES[operation];
          const parsed = schema.safeParse(body);
          if (parsed.success) return { outcome: "ok", status, data: body as never, code: null, error: null, issues: [], requestId };
          const issue = parsed.error.issues[0];
          const error = `GET ${pathAndQuery.split("?")[0]} answered 200 with a body that is not a ${name} (${issue.path.join(".") || "body"}: ${issue.message})`;
          failed = { outcome: "failed", reason: "bad-response", status, code: null, error, issues: [], requestId, attempts: attempt };
        } else {
          const fields = errorFields<Code>(status, body);
          if (isRefusal(status, fields.code as string | null)) return { outcome: "rejected", status, requestId, ...fields };
          failed = { outcome: "failed", reason: "server-error", status, requestId, ...fields, attempts: attempt };
        }
      }
      if (attempt >= this.retry.maxAttempts) return failed;
      const cap = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
      const wait = Math.random() * cap;
      if (Date.now() + wait >= deadline) return failed;
      try {
        await sleep(wait, undefined, { signal: options.signal });
      } catch {
        return { ...failed, reason: "aborted", error: "Aborted by the caller" };
      }
    }
  }
}
