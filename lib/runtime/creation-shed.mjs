// Before Next sees a POST: while lead creation's line is full, the route's own 429 CREATION_BUSY is written here, and
// the connection is not read again until its Retry-After has passed (docs/decisions.md, "Creation sheds load").
import { readFileSync } from "node:fs";

const { creationGate } = JSON.parse(readFileSync(new URL("../api/method-guard.json", import.meta.url), "utf8"));
/** Registered by the route side once lead creation's route is loaded (lib/api/creation-gate.ts). */
const GATE = Symbol.for(creationGate);

/**
 * Creations let through that Next has not yet handed to the route: counted here, as Next routes them later. Next starts
 * reading the body as it hands a request to its route ('resume'), so a slow upload is not counted while it lasts.
 */
let coming = 0;

/**
 * Answers a POST that lead creation cannot admit; true when it did, and the request must not reach Next.
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 */
export function shedCreation(req, res) {
  if (req.method !== "POST") return false;
  const gate = /** @type {import("../api/creation-gate").CreationGate | undefined} */ (
    /** @type {Record<symbol, unknown>} */ (globalThis)[GATE]
  );
  const url = req.url ?? "";
  if (!gate?.creates(url)) return false;
  const refusal = gate.refusal(url, req.headers, coming);
  if (!refusal) {
    coming++;
    let counted = true;
    const routed = () => {
      if (counted) coming--;
      counted = false;
    };
    req.once("resume", routed);
    res.once("close", routed);
    return false;
  }
  res.writeHead(refusal.status, refusal.headers).end(refusal.body);
  res.once("finish", () => setImmediate(rest, req.socket, refusal.retryAfterSeconds * 1000));
  return true;
}

/**
 * Stops reading a kept-alive connection for `ms`: a caller that resends at once waits as Retry-After said, and costs
 * nothing meanwhile. After 'finish' and its turn, because Node resumes the socket to drain the refused body.
 * @param {import("node:net").Socket} socket
 * @param {number} ms
 */
function rest(socket, ms) {
  if (socket.destroyed) return;
  socket.pause();
  const stop = () => clearTimeout(timer);
  const timer = setTimeout(() => {
    socket.off("close", stop);
    socket.resume();
  }, ms);
  socket.once("close", stop);
}
