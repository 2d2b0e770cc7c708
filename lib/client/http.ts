import { type IncomingHttpHeaders, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

/**
 * One HTTP exchange with the service, never repeated here: retries are decided by the caller (lib/client/client.ts).
 * node:http does not resend a request written to a socket (tests/client/client.http.test.ts), and costs less CPU per
 * request than fetch (docs/decisions.md, "The importer's cost per row").
 */

export type Exchange =
  | {
      kind: "response";
      status: number;
      body: unknown;
      requestId: string | null;
      /** The response's `ETag`, if any. */
      etag: string | null;
      /** How long the server asked the caller to wait (`Retry-After`), in ms; null without a usable one. */
      retryAfterMs: number | null;
    }
  | { kind: "failure"; reason: "timeout" | "aborted" | "refused" | "connection"; message: string };

export interface ExchangeRequest {
  method: "GET" | "POST";
  url: URL;
  apiKey: string;
  body?: unknown;
  /** Further request headers, such as If-None-Match. */
  headers?: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Errors raised before any byte was sent: the request cannot have reached the server. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"]);

/** Redirects are failures, never followed: the key is not sent to another address. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

type CodedError = { code?: unknown; errors?: { code?: unknown }[] };

/** The system error codes of a failure: its own, or those of each address tried (AggregateError). */
function errorCodes(error: unknown): string[] {
  const { code, errors = [] } = (error ?? {}) as CodedError;
  const codes = [code, ...errors.map((e) => e.code)].filter((c): c is string => typeof c === "string");
  return [...new Set(codes)];
}

/** `Retry-After` as delay-seconds or an HTTP date (RFC 9110 10.2.3), in ms from now; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export async function exchange(request: ExchangeRequest): Promise<Exchange> {
  const headers: Record<string, string> = {
    ...request.headers,
    authorization: `Bearer ${request.apiKey}`,
    accept: "application/json",
  };
  // A string body goes out in the same write as the headers (node:http joins them); a Buffer would take a second one.
  const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
  if (payload !== undefined) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(payload));
  }
  const ending = { timedOut: false };
  try {
    const response = await send(request, headers, payload, ending);
    let body: unknown;
    try {
      body = response.text ? JSON.parse(response.text) : undefined;
    } catch {
      body = undefined;
    }
    const header = (name: string) => {
      const value = response.headers[name];
      return typeof value === "string" ? value : null;
    };
    return {
      kind: "response",
      status: response.status,
      body,
      requestId: header("x-request-id"),
      etag: header("etag"),
      retryAfterMs: retryAfterMs(header("retry-after")),
    };
  } catch (error) {
    if (request.signal?.aborted) return { kind: "failure", reason: "aborted", message: "Aborted by the caller" };
    if (ending.timedOut)
      return { kind: "failure", reason: "timeout", message: `No complete answer within ${request.timeoutMs} ms` };
    const codes = errorCodes(error);
    const message = `Connection failed${codes.length ? ` (${codes.join(", ")})` : ""}`;
    const refused = codes.length > 0 && codes.every((code) => NOT_SENT_CODES.has(code));
    return { kind: "failure", reason: refused ? "refused" : "connection", message };
  }
}

/**
 * Sends the request and reads the whole answer; rejects on any failure, a redirect included, and when the caller's
 * signal aborts or `timeoutMs` passes first (then `ending.timedOut` is set). A timer, not AbortSignal.timeout and
 * AbortSignal.any, which cost more CPU per request (docs/decisions.md, "The importer's cost per row").
 */
function send(
  request: ExchangeRequest,
  headers: Record<string, string>,
  payload: string | undefined,
  ending: { timedOut: boolean },
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const { signal } = request;
    if (signal?.aborted) return reject(new Error("Aborted by the caller"));
    const call = request.url.protocol === "https:" ? httpsRequest : httpRequest;
    const outgoing = call(request.url, { method: request.method, headers }, (incoming) => {
      const status = incoming.statusCode!;
      if (REDIRECT_STATUSES.has(status)) {
        incoming.destroy();
        return fail(new Error(`Redirected (${status})`));
      }
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () => {
        settle();
        resolve({ status, headers: incoming.headers, text: Buffer.concat(chunks).toString("utf8") });
      });
      incoming.on("error", fail);
      incoming.on("close", () => incoming.complete || fail(new Error("The connection closed mid-answer")));
    });
    const abort = () => outgoing.destroy(new Error("Aborted by the caller"));
    const timer = setTimeout(() => {
      ending.timedOut = true;
      outgoing.destroy(new Error("Timed out"));
    }, request.timeoutMs);
    signal?.addEventListener("abort", abort, { once: true });
    function settle() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
    }
    function fail(error: unknown) {
      settle();
      reject(error);
    }
    outgoing.on("error", fail);
    outgoing.end(payload);
  });
}
