import type { AsyncLocalStorage } from "node:async_hooks";
import { authenticate } from "@/lib/api/auth";
import { ApiError, retryAfterOf } from "@/lib/api/errors";
import methodGuard from "@/lib/api/method-guard.json";
import { requestIdOf } from "@/lib/api/request-id";
import { errorBody, UNCACHED } from "@/lib/api/response";
import { recordRequest } from "@/lib/api/route";
import { creationFull, creationRetryAfter } from "@/lib/db/creation-budget";
import { database } from "@/lib/db/prisma";
import { servicePrepared } from "@/lib/startup/service";

/**
 * What the preload asks before Next sees a POST (lib/preload/creation-shed.mjs): while lead creation's line is full, a
 * POST with the right key is refused there for a fraction of what a request through Next costs (docs/decisions.md,
 * "Creation sheds load"). The answer is the route's own: same status, headers and body, from the one error table.
 */
export interface CreationGate {
  /** Whether a POST to `url` creates a lead. */
  creates(url: string): boolean;
  /**
   * The rendered 429 CREATION_BUSY for a creation, logged and counted, or undefined when it goes on to Next; `coming`
   * is how many creations were let through that Next has not yet handed to the route, `told` how many refused ones
   * are still within their Retry-After.
   */
  refusal(url: string, headers: NodeHeaders, coming: number, told: number): Refusal | undefined;
}

export interface Refusal {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** How long the caller is told to wait, in seconds. */
  retryAfterSeconds: number;
}

type NodeHeaders = Record<string, string | string[] | undefined>;

/** app/api/leads/route.ts's POST, the only creation; it has no alias. */
const CREATION_PATH = /^\/api\/leads\/?$/;
const CREATION_BUSY = new ApiError("CREATION_BUSY");
const RETRY_AFTER = retryAfterOf("CREATION_BUSY")!;

const gate: CreationGate = {
  creates: (url) => CREATION_PATH.test(pathOf(url)),
  refusal(url, headers, coming, told) {
    const startedAt = performance.now();
    if (!servicePrepared() || !creationFull(database(), coming)) return undefined;
    const request = { headers: { get: (name: string) => single(headers[name]) } };
    let key;
    try {
      // The key check comes first, as in the route: a caller without the key is answered by it (401 or 503).
      key = authenticate(request);
    } catch {
      return undefined;
    }
    const requestId = requestIdOf(request);
    const retryAfter = creationRetryAfter(database(), told, RETRY_AFTER);
    const body = JSON.stringify(errorBody(CREATION_BUSY, requestId));
    recordRequest({
      requestId,
      method: "POST",
      path: pathOf(url),
      status: CREATION_BUSY.status,
      code: "CREATION_BUSY",
      startedAt,
      key,
    });
    return {
      status: CREATION_BUSY.status,
      headers: {
        "Content-Type": "application/json",
        ...UNCACHED,
        "Retry-After": String(retryAfter),
        "X-Request-Id": requestId,
        "Content-Length": String(Buffer.byteLength(body)),
      },
      body,
      retryAfterSeconds: retryAfter,
    };
  },
};

function pathOf(url: string): string {
  return url.split("?", 1)[0]!;
}

/** A header's value as `Headers.get` gives it: Node joins repeated ones but for a few it keeps as a list. */
function single(value: string | string[] | undefined): string | null {
  return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
}

/**
 * Tells the preload that the route has taken the creation it serves, before reading its body: the preload stops
 * counting it as `coming` then, when the route's own checks and the budget take over. Without the preload, or for a
 * request it did not count, nothing happens.
 */
export function creationRouted(): void {
  const routing = (globalThis as Record<symbol, unknown>)[Symbol.for(methodGuard.creationRouting)] as
    AsyncLocalStorage<() => void> | undefined;
  routing?.getStore()?.();
}

/** Opens the gate for the preload, once per process whatever Next bundles (called by the route of lead creation). */
export function openCreationGate(): void {
  (globalThis as Record<symbol, unknown>)[Symbol.for(methodGuard.creationGate)] = gate;
}
