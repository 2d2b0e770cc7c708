// Before Next sees a POST: while lead creation's line is full, the route's own 429 CREATION_BUSY is written here, and
// the connection is not read again for half its Retry-After (docs/decisions.md, "Creation sheds load").
import { AsyncLocalStorage } from "node:async_hooks";
import { readFileSync } from "node:fs";

const { creationGate, creationRouting } = JSON.parse(
  readFileSync(new URL("../api/method-guard.json", import.meta.url), "utf8"),
);
/** Registered by the route side once lead creation's route is loaded (lib/api/creation-gate.ts). */
const GATE = Symbol.for(creationGate);

/**
 * Creations let through that the route has not yet taken, before it reads the body (so a slow upload is not counted):
 * counted here, as Next routes them later. One that Next answers without the route stops counting as its answer ends.
 */
let coming = 0;
/** Creations refused here whose Retry-After has not yet passed: the gate tells the next ones to come after them. */
let told = 0;
/**
 * The part of Retry-After a refused connection rests: a caller that waits as told must not find it still resting,
 * however late a busy loop runs the timer that ends the rest.
 */
export const REST_SHARE = 0.5;
/**
 * While Next serves a creation counted here, its release, which the route calls (lib/api/creation-gate.ts).
 * @type {AsyncLocalStorage<() => void>}
 */
const routing = new AsyncLocalStorage();
/** @type {Record<symbol, unknown>} */ (globalThis)[Symbol.for(creationRouting)] = routing;

/**
 * Answers a POST that lead creation cannot admit, and otherwise hands the request on: `serve` passes it to Next.
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 * @param {() => void} serve
 */
export function shedCreation(req, res, serve) {
  if (req.method !== "POST") return serve();
  const gate = /** @type {import("../api/creation-gate").CreationGate | undefined} */ (
    /** @type {Record<symbol, unknown>} */ (globalThis)[GATE]
  );
  const url = req.url ?? "";
  if (!gate?.creates(url)) return serve();
  const refusal = gate.refusal(url, req.headers, coming, told);
  if (!refusal) {
    coming++;
    let counted = true;
    const routed = () => {
      if (counted) coming--;
      counted = false;
    };
    res.once("close", routed);
    return routing.run(routed, serve);
  }
  res.writeHead(refusal.status, refusal.headers).end(refusal.body);
  const waitMs = refusal.retryAfterSeconds * 1000;
  told++;
  setTimeout(() => told--, waitMs).unref();
  rest(req.socket, waitMs * REST_SHARE);
}

/**
 * Stops reading a kept-alive connection for `ms`: a caller that resends at once waits, and costs nothing meanwhile.
 * Its handle stops at once: Node's HTTP parser reads the handle itself, and a loop with every socket ready reads the
 * resent request before any later callback could pause it (docs/decisions.md).
 * @param {import("node:net").Socket} socket
 * @param {number} ms
 */
function rest(socket, ms) {
  const handle = /** @type {{ reading?: boolean, readStop(): void, readStart(): void } | undefined} */ (
    /** @type {{ _handle?: unknown }} */ (socket)._handle
  );
  const stopped = handle?.reading ? handle : undefined;
  if (stopped) {
    stopped.reading = false;
    stopped.readStop();
  }
  setTimeout(() => {
    if (!stopped || socket.destroyed || stopped.reading) return;
    stopped.reading = true;
    stopped.readStart();
  }, ms).unref();
}
