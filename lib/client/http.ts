/**
 * One HTTP exchange with the service, never repeated here: retries are decided by the
 * caller (lib/client/client.ts) per method. Node's fetch (undici) does not resend a
 * request that was written to a socket, kept-alive or not; tests/http/client.test.ts
 * proves it for a POST whose connection is dropped after the body was read.
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

function causeCodes(error: unknown): string[] {
  const cause = (error as { cause?: { code?: string; errors?: { code?: string }[] } })?.cause;
  if (!cause) return [];
  const codes = [cause.code, ...(cause.errors ?? []).map((e) => e.code)].filter(
    (c): c is string => typeof c === "string",
  );
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
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  const headers: Record<string, string> = {
    ...request.headers,
    authorization: `Bearer ${request.apiKey}`,
    accept: "application/json",
  };
  if (request.body !== undefined) headers["content-type"] = "application/json";
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal,
      redirect: "error",
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return {
      kind: "response",
      status: response.status,
      body,
      requestId: response.headers.get("x-request-id"),
      etag: response.headers.get("etag"),
      retryAfterMs: retryAfterMs(response.headers.get("retry-after")),
    };
  } catch (error) {
    if (request.signal?.aborted) return { kind: "failure", reason: "aborted", message: "Aborted by the caller" };
    if (timeout.aborted)
      return { kind: "failure", reason: "timeout", message: `No complete answer within ${request.timeoutMs} ms` };
    const codes = causeCodes(error);
    const message = `Connection failed${codes.length ? ` (${codes.join(", ")})` : ""}`;
    const refused = codes.length > 0 && codes.every((code) => NOT_SENT_CODES.has(code));
    return { kind: "failure", reason: refused ? "refused" : "connection", message };
  }
}
