import type { components, operations } from "./openapi.js";

/**
 * The client's types, derived from lib/client/openapi.ts, which is generated from the service's document, so a
 * contract change reaches them through `npm run client:types`.
 */

type Schemas = components["schemas"];
export type CreateLeadRequest = Schemas["CreateLeadRequest"];
export type CreatedLead = Schemas["CreatedLead"];
export type ListedLead = Schemas["ListedLead"];
export type Source = Schemas["Source"];
export type Agent = Schemas["Agent"];
export type Pagination = Schemas["Pagination"];
export type Issue = Schemas["Issue"];
export type SourcesResponse = Schemas["SourcesResponse"];
export type AgentsResponse = Schemas["AgentsResponse"];
export type CreateLeadResponse = Schemas["CreateLeadResponse"];
export type ListLeadsResponse = Schemas["ListLeadsResponse"];
export type ListLeadsQuery = NonNullable<operations["listLeads"]["parameters"]["query"]>;

export type OperationId = "createLead" | "listLeads" | "listSources" | "listAgents";
type Responses<Op extends OperationId> = operations[Op]["responses"];
type JsonBody<R> = R extends { content: { "application/json": infer B } } ? B : never;
type SuccessStatus = 200 | 201;
/** The body of an operation's success response. */
export type SuccessBody<Op extends OperationId> = JsonBody<Responses<Op>[Extract<keyof Responses<Op>, SuccessStatus>]>;
/** The error codes an operation is documented to answer with. */
export type ErrorCode<Op extends OperationId> = CodeOf<
  JsonBody<Responses<Op>[Exclude<keyof Responses<Op>, SuccessStatus>]>
>;
type CodeOf<B> = B extends { code: infer C extends string } ? C : never;

/**
 * What every outcome carries: the HTTP status (null when no response arrived), the
 * error `code` and `error` text (null on success or without a documented body), the
 * `issues` (empty unless the server listed some) and the server's X-Request-Id.
 */
interface Answer<Code> {
  status: number | null;
  code: Code | null;
  error: string | null;
  issues: Issue[];
  requestId: string | null;
}

export interface Ok<T> extends Answer<never> {
  outcome: "ok";
  status: number;
  data: T;
}

/**
 * A 4xx, or a 503 that needs the administrator (API_NOT_CONFIGURED,
 * ASSIGNMENT_NOT_CONFIGURED): the server answered that it did nothing. Correct the
 * request (or the configuration) before trying again; the client never retries these.
 */
export interface Rejected<Code> extends Answer<Code> {
  outcome: "rejected";
  status: number;
  error: string;
  /** With 429 RATE_LIMITED: the seconds of `Retry-After`, after which the same request may be sent again. */
  retryAfterSeconds?: number;
}

/**
 * POST only: the request may or may not have created a lead (timeout, connection
 * lost after sending, a 5xx, or an unreadable 201). Never resent: reconcile first.
 */
export interface Uncertain<Code> extends Answer<Code> {
  outcome: "uncertain";
  reason: "timeout" | "connection" | "server-error" | "bad-response";
  error: string;
}

/** POST only: no connection could be opened (refused, unknown host), so nothing was sent. */
export interface Unsent extends Answer<never> {
  outcome: "unsent";
  status: null;
  error: string;
}

/**
 * GET only: transport errors, transient 5xx, or answers asking to retry later (`busy`: a 4xx with `Retry-After`) until
 * the retry budget ran out, or the caller aborted.
 */
export interface Failed<Code> extends Answer<Code> {
  outcome: "failed";
  reason: "timeout" | "connection" | "server-error" | "busy" | "bad-response" | "aborted";
  error: string;
  attempts: number;
}

export type PostOutcome<Op extends OperationId> =
  Ok<SuccessBody<Op>> | Rejected<ErrorCode<Op>> | Uncertain<ErrorCode<Op>> | Unsent;
export type GetOutcome<Op extends OperationId> = Ok<SuccessBody<Op>> | Rejected<ErrorCode<Op>> | Failed<ErrorCode<Op>>;
