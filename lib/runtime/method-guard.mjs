// Hands a request under /api whose method Next refuses before any route runs to the routes as a PATCH, so it gets
// the JSON 405 or 404 of any unsupported method (docs/decisions.md, "Every method under /api answers JSON").
import { readFileSync } from "node:fs";

const ROUTED = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const { originalMethodHeader } = JSON.parse(readFileSync(new URL("../api/method-guard.json", import.meta.url), "utf8"));

/**
 * Before Next sees the request: hands an unroutable method under /api to the routes as PATCH.
 * @param {import("node:http").IncomingMessage} req
 */
export function guardMethod(req) {
  const method = req.method ?? "";
  if (ROUTED.has(method)) {
    // Only this guard may set it: a client's own value would name any method it likes.
    if (req.headers[originalMethodHeader] !== undefined) delete req.headers[originalMethodHeader];
  } else if (/^\/api(\/|\?|$)/.test(req.url ?? "")) {
    req.headers[originalMethodHeader] = method;
    req.method = "PATCH";
  }
}
