import { trace } from "@opentelemetry/api";
import { prepareService, servicePrepared } from "@/lib/startup/service";
import { authenticate, type MatchedKey, Unauthorized } from "@/lib/api/auth";
import { ApiError, retryAfterOf, type ErrorCode } from "@/lib/api/errors";
import { LeadRefusal } from "@/lib/leads/refusal";
import { type Access, logAccess, logFailure } from "@/lib/api/log";
import { requestIdOf } from "@/lib/api/request-id";
import methodGuard from "@/lib/api/method-guard.json";
import { errorResponse } from "@/lib/api/response";
import { admitCreation, isCreationBusy } from "@/lib/db/creation-budget";
import { database } from "@/lib/db/prisma";
import { isReadsBusy } from "@/lib/db/read-budget";
import { classifyFailure } from "@/lib/db/failures";
import { observer } from "@/lib/db/observer";
import { admit, RateLimited } from "@/lib/api/rate-limit";

type Handler = (request: Request) => Promise<Response>;

/** 405 with its route's Allow header. */
class MethodNotAllowed extends ApiError {
  constructor(
    method: string,
    readonly allow: string,
  ) {
    super("METHOD_NOT_ALLOWED", `${method} is not supported here; use ${allow}`);
  }
}

/**
 * After these the connection is closed: the rest of a refused oversized body is never
 * read, and a caller without the key gets no kept-alive socket to try again on.
 */
const CLOSES_CONNECTION = new Set<ErrorCode>(["UNAUTHORIZED", "PAYLOAD_TOO_LARGE"]);
const CLOSE = { Connection: "close" };
const INTERNAL = new ApiError("INTERNAL_ERROR");
const READS_BUSY = new ApiError("READS_BUSY");
const CREATION_BUSY = new ApiError("CREATION_BUSY");
const MALFORMED = new ApiError("MALFORMED_REQUEST");

/**
 * The one wrapper every response under /api goes through: request id, key check, start-up work, the handler, one
 * access log line. Any failure becomes the documented JSON error (docs/operating.md, "Access log and failure kinds").
 */
async function serve(request: Request, handler: Handler, needsKey: boolean): Promise<Response> {
  const startedAt = performance.now();
  const requestId = requestIdOf(request);
  const path = new URL(request.url).pathname;
  const method = methodOf(request);
  let key: MatchedKey | undefined;
  let code: ErrorCode | ClientGone | undefined;
  let response: Response;
  try {
    if (needsKey) {
      key = authenticate(request);
      if (!servicePrepared()) await prepareService();
      // Before the body, the rate limit's claim or any other work: a burst is refused for what it costs to say no.
      if (request.method === "POST") admitCreation(database());
      await admit(request.method === "POST" ? "create" : "read", key, requestId);
    }
    response = await handler(request);
  } catch (error) {
    let refusal = INTERNAL;
    let gone: ClientGone | undefined;
    if (error instanceof ApiError) refusal = error;
    else if (malformedBody(error)) refusal = MALFORMED;
    else if (error instanceof LeadRefusal) refusal = new ApiError(error.reason, error.detail);
    else if (isReadsBusy(error)) {
      refusal = READS_BUSY;
      observer()?.readsBusy();
    } else if (isCreationBusy(error)) refusal = CREATION_BUSY;
    else if ((gone = clientGone(request, error))) {
      return finish(requestId, method, path, startedAt, key, gone, new Response(null, { status: GONE_STATUS[gone] }));
    } else {
      logFailure(requestId, method, path, error);
      if (classifyFailure(error).kind === "pool-timeout") observer()?.poolTimeout();
    }
    code = refusal.code;
    response = errorResponse(refusal, requestId, refusalHeaders(refusal));
  }
  response.headers.set("X-Request-Id", requestId);
  return finish(requestId, method, path, startedAt, key, code, response);
}

/** The request's trace attributes, access log line and metrics, then its response. */
function finish(
  requestId: string,
  method: string,
  path: string,
  startedAt: number,
  key: MatchedKey | undefined,
  code: ErrorCode | ClientGone | undefined,
  response: Response,
): Response {
  const span = trace.getActiveSpan();
  if (span) {
    span.setAttribute("lead_intake.request_id", requestId);
    if (code) span.setAttribute("lead_intake.error_code", code);
  }
  recordRequest({ requestId, method, path, status: response.status, code, startedAt, key });
  return response;
}

/** A request's access log line and metrics, also for one the preload answers before Next (lib/api/creation-gate.ts). */
export function recordRequest(access: Access): void {
  logAccess(access);
  const seconds = (performance.now() - access.startedAt) / 1000;
  // A trailing slash is the same path (docs/decisions.md, "A trailing slash is the same path").
  const { path, method } = access;
  const bare = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  const route = ROUTES.has(bare) ? bare : OTHER_ROUTE;
  observer()?.request(route, METRIC_METHODS.has(method) ? method : "_OTHER", access.status, access.code, seconds);
}

/**
 * A request whose client went away before its answer: closed by the client (499, as nginx logs it) or ended by the
 * server's request timeout (408). Neither is a server fault; the status goes to the log and metrics only
 * (docs/decisions.md, "A client that goes away is 499").
 */
type ClientGone = "client-closed" | "request-timeout";
const GONE_STATUS: Record<ClientGone, number> = { "client-closed": 499, "request-timeout": 408 };

function clientGone(request: Request, error: unknown): ClientGone | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return "request-timeout";
  // Node's error for a body cut short by the client (the signal may be aborted a moment later); a database failure
  // while the client was leaving is still the server's.
  if (code === "ECONNRESET" && message === "aborted") return "client-closed";
  if (request.signal.aborted && classifyFailure(error).kind === "unexpected") return "client-closed";
  return undefined;
}

/** A body that Node's parser refused midway (a malformed chunk): the preload answered it MALFORMED_REQUEST. */
function malformedBody(error: unknown): boolean {
  const { code } = (error ?? {}) as { code?: unknown };
  return typeof code === "string" && code.startsWith("HPE_");
}

/**
 * The route templates of app/api, the metrics' http.route: any other path answered here is the catch-all's, so the
 * number of series stays bounded whatever paths clients send (tests/operations/metric-routes.unit.test.ts keeps the
 * list whole).
 */
export const ROUTES: ReadonlySet<string> = new Set([
  "/api/leads",
  "/api/leads/sources",
  "/api/leads/ads",
  "/api/sources",
  "/api/leads/agents",
  "/api/agents",
  "/api/health/live",
  "/api/health/ready",
]);
export const OTHER_ROUTE = "/api/[[...path]]";

function refusalHeaders(refusal: ApiError): Record<string, string> | undefined {
  if (refusal instanceof MethodNotAllowed) return { Allow: refusal.allow };
  if (refusal instanceof Unauthorized) return { ...CLOSE, "WWW-Authenticate": refusal.challenge };
  if (refusal instanceof RateLimited) return refusal.headers;
  if (CLOSES_CONNECTION.has(refusal.code)) return CLOSE;
  const retryAfter = retryAfterOf(refusal.code);
  return retryAfter === undefined ? undefined : { "Retry-After": String(retryAfter) };
}

/**
 * The method as sent: lib/preload/method-guard.mjs hands methods Next cannot route to the routes as PATCH. Without it
 * in the process (a host's own `next start`) the header can only be a client's, and is ignored.
 */
function methodOf(request: Request): string {
  const guarded = (globalThis as Record<symbol, unknown>)[Symbol.for(methodGuard.guardLoaded)] === true;
  return (guarded ? request.headers.get(methodGuard.originalMethodHeader) : null) ?? request.method;
}

/** A data operation: needs the key, and the start-up work done (lib/startup/service.ts). */
export function apiRoute(handler: Handler): Handler {
  return (request) => serve(request, handler, true);
}

/** A public route (health): no key, touches nothing it does not need itself. */
export function publicRoute(handler: Handler): Handler {
  return (request) => serve(request, handler, false);
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
/** The methods the metrics name (the routes' own, and HEAD); any other is `_OTHER`, as the semantic conventions say. */
const METRIC_METHODS: ReadonlySet<string> = new Set([...METHODS, "HEAD"]);
type Method = (typeof METHODS)[number];
type Methods = Record<Method, Handler>;

function everyMethod(handlers: Partial<Methods>, rest: Handler): Methods {
  return Object.fromEntries(METHODS.map((m) => [m, handlers[m] ?? rest])) as Methods;
}

/**
 * Route exports for every method: the given handlers, HEAD following GET, and a JSON 405 with Allow for the rest,
 * which Next would answer with an empty body.
 */
export function routeMethods(handlers: Partial<Methods>): Methods {
  return everyMethod(handlers, refusedMethod(Object.keys(handlers).join(", ")));
}

/** The exports of a route outside the API whose only method is GET (the documentation's): a JSON 405 for the rest. */
export const otherThanGet: Omit<Methods, "GET"> = everyMethod({}, refusedMethod("GET"));

function refusedMethod(allow: string): Handler {
  return publicRoute(async (request) => {
    throw new MethodNotAllowed(methodOf(request), allow);
  });
}

/** Every method of a path under /api that does not exist: 404 NOT_FOUND as JSON. */
export const notFound: Methods = everyMethod(
  {},
  publicRoute(async () => {
    throw new ApiError("NOT_FOUND");
  }),
);
