import { setTimeout as sleep } from "node:timers/promises";
import { ERROR_CODES, SUCCESS_BODIES } from "./contract.js";
import { type Exchange, exchange } from "./http.js";
import { departure } from "./shape.js";
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
  SourcesResponse,
} from "./types.js";

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

/**
 * The wait before another attempt: the server's Retry-After, if any, plus full jitter below a cap that doubles with
 * each attempt, so callers refused together by a busy server do not all come back at once.
 */
export function backoffMs(policy: RetryPolicy, attempt: number, retryAfterMs: number | null): number {
  return (retryAfterMs ?? 0) + Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 5_000, deadlineMs: 30_000 };
const DEFAULT_TIMEOUT_MS = 10_000;

/** The success body each operation answers with, by its component name in the document. */
const OK_BODY_NAMES = {
  createLead: "CreateLeadResponse",
  listLeads: "ListLeadsResponse",
  listSources: "SourcesResponse",
  listAgents: "AgentsResponse",
};

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
  const known =
    typeof b.code === "string" && Object.hasOwn(ERROR_CODES, b.code) && ERROR_CODES[b.code].status === status;
  return {
    code: known ? (b.code as Code) : null,
    error: known && typeof b.error === "string" ? b.error : `HTTP ${status}`,
    issues: known && Array.isArray(b.issues) ? (b.issues as Issue[]) : [],
  };
}

/**
 * Whether an error answer may be retried: as the document's error table says for a code it lists (a 503 that needs
 * the administrator never is); else when the server gives `Retry-After`, or for any other 5xx. The rest are refusals:
 * the server did nothing, and the request must change first.
 */
function isTransient(status: number, code: string | null, retryAfterMs: number | null): boolean {
  if (code !== null) return ERROR_CODES[code].transient;
  return retryAfterMs !== null || status >= 500;
}

/** The shape check of a success body, as one sentence, or null when it holds what the document requires. */
function unreadable(
  operation: keyof typeof OK_BODY_NAMES,
  method: string,
  path: string,
  status: number,
  body: unknown,
): string | null {
  const problem = departure(body, SUCCESS_BODIES[operation]);
  return (
    problem && `${method} ${path} answered ${status} with a body that is not a ${OK_BODY_NAMES[operation]} (${problem})`
  );
}

/**
 * A typed client of the Lead Intake Service: one method per operation, outcomes as values (never thrown), the
 * contract's retry rules built in. A POST is sent again only after a refusal that asks to retry; anything between
 * success and a refusal is `uncertain`, for the caller to reconcile.
 */
export class LeadsClient {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  /** Where createLead posts, parsed once: a bulk import posts it for every row. */
  private readonly leadsUrl: URL;
  /** The last sources list and its ETag, sent back in If-None-Match. */
  private sources: { etag: string; data: SourcesResponse } | null = null;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl;
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.leadsUrl = new URL("/api/leads", this.baseUrl);
  }

  /** POST /api/leads: sent once, and again only after a refusal that asks to retry later (nothing was created). */
  async createLead(body: CreateLeadRequest, options: CallOptions = {}): Promise<PostOutcome<"createLead">> {
    type Code = ErrorCode<"createLead">;
    const deadline = Date.now() + this.retry.deadlineMs;
    for (let attempt = 1; ; attempt++) {
      const answer = await exchange({
        method: "POST",
        url: this.leadsUrl,
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
      const { status, body: json, requestId, retryAfterMs } = answer;
      if (status === 201) {
        const error = unreadable("createLead", "POST", "/api/leads", status, json);
        if (!error)
          return { outcome: "ok", status, data: json as never, code: null, error: null, issues: [], requestId };
        return { outcome: "uncertain", reason: "bad-response", status, code: null, error, issues: [], requestId };
      }
      const fields = errorFields<Code>(status, json);
      // A 5xx may have created the lead, unless the document says its code is one the server answers without trying.
      const refused = status < 500 || (fields.code !== null && !ERROR_CODES[fields.code].transient);
      if (!refused) return { outcome: "uncertain", reason: "server-error", status, requestId, ...fields };
      const rejected = {
        outcome: "rejected" as const,
        status,
        requestId,
        ...fields,
        ...(status === 429 && retryAfterMs !== null ? { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) } : {}),
      };
      const wait = backoffMs(this.retry, attempt, retryAfterMs);
      if (retryAfterMs === null || !isTransient(status, fields.code, retryAfterMs) || attempt >= this.retry.maxAttempts)
        return rejected;
      if (Date.now() + wait >= deadline || !(await pause(wait, options.signal))) return rejected;
    }
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

  /** Forgets the kept sources list, so the next listSources() asks for the whole list. */
  forgetSources(): void {
    this.sources = null;
  }

  /** GET /api/leads/agents */
  listAgents(options: CallOptions = {}): Promise<GetOutcome<"listAgents">> {
    return this.get("listAgents", "/api/leads/agents", options);
  }

  /**
   * Every lead of GET /api/leads, page after page, each `referralId` once (inserts while paging repeat leads). Throws
   * LeadsClientError when a page cannot be read, or says `hasMore` yet brings no new lead, which would page for ever.
   */
  async *leads(query: Omit<ListLeadsQuery, "offset"> = {}, options: CallOptions = {}): AsyncGenerator<ListedLead> {
    const seen = new Set<number>();
    for (let offset = 0; ;) {
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
        throw new LeadsClientError({
          outcome: "failed",
          reason: "bad-response",
          status: page.status,
          code: null,
          error,
          issues: [],
          requestId: page.requestId,
          attempts: 1,
        });
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
    const path = pathAndQuery.split("?")[0];
    const deadline = Date.now() + this.retry.deadlineMs;
    for (let attempt = 1; ; attempt++) {
      const kept = operation === "listSources" ? this.sources : null;
      const answer: Exchange = await exchange({
        method: "GET",
        url: new URL(pathAndQuery, this.baseUrl),
        apiKey: this.apiKey,
        headers: kept ? { "if-none-match": kept.etag } : undefined,
        timeoutMs: Math.max(1, Math.min(this.timeoutMs, deadline - Date.now())),
        signal: options.signal,
      });
      let failed: Failed<Code>;
      let wait: number | null = null;
      if (answer.kind === "failure") {
        const reason = answer.reason === "refused" ? "connection" : answer.reason;
        failed = {
          outcome: "failed",
          reason,
          status: null,
          code: null,
          error: answer.message,
          issues: [],
          requestId: null,
          attempts: attempt,
        };
        if (reason === "aborted") return failed;
      } else {
        const { status, body, requestId, etag } = answer;
        if (status === 304 && kept)
          return { outcome: "ok", status, data: kept.data as never, code: null, error: null, issues: [], requestId };
        if (status === 200) {
          const error = unreadable(operation, "GET", path, status, body);
          if (!error) {
            if (operation === "listSources") this.sources = etag ? { etag, data: body as SourcesResponse } : null;
            return { outcome: "ok", status, data: body as never, code: null, error: null, issues: [], requestId };
          }
          failed = {
            outcome: "failed",
            reason: "bad-response",
            status,
            code: null,
            error,
            issues: [],
            requestId,
            attempts: attempt,
          };
        } else {
          const fields = errorFields<Code>(status, body);
          if (!isTransient(status, fields.code as string | null, answer.retryAfterMs))
            return { outcome: "rejected", status, requestId, ...fields };
          failed = {
            outcome: "failed",
            reason: status >= 500 ? "server-error" : "busy",
            status,
            requestId,
            ...fields,
            attempts: attempt,
          };
          wait = answer.retryAfterMs;
        }
      }
      if (attempt >= this.retry.maxAttempts) return failed;
      // The server's own Retry-After when it gave one, else full jitter below the doubling cap.
      wait ??= backoffMs(this.retry, attempt, 0);
      if (Date.now() + wait >= deadline) return failed;
      if (!(await pause(wait, options.signal))) return { ...failed, reason: "aborted", error: "Aborted by the caller" };
    }
  }
}

/** Waits `ms`; false when the caller aborted meanwhile. */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
