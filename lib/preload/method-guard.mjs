// Before Next sees a request to the module's paths: what Next would refuse or redirect without the module's JSON and
// headers is handed to the routes (docs/decisions.md, "Every method under /api answers JSON").
import { readFileSync } from "node:fs";

const ROUTED = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const { originalMethodHeader, guardLoaded } = JSON.parse(
  readFileSync(new URL("../api/method-guard.json", import.meta.url), "utf8"),
);
/** The module's paths: its API and its documentation. */
const MODULE_PATH = /^\/(api|docs|openapi\.json|swagger-ui)(\/|$)/;

// The routes trust the header only in a process this guard runs in, where no client's value reaches them.
Object.defineProperty(globalThis, Symbol.for(guardLoaded), { value: true });

/**
 * Drops a client's own method header, which would name any method it likes; spells the module's paths with single
 * slashes, which Next would redirect to; and hands an unroutable method on them to the routes as PATCH.
 * @param {import("node:http").IncomingMessage} req
 */
export function guardRequest(req) {
  if (req.headers[originalMethodHeader] !== undefined) delete req.headers[originalMethodHeader];
  const url = req.url ?? "";
  const end = url.indexOf("?") === -1 ? url.length : url.indexOf("?");
  const given = url.slice(0, end);
  const path = /\/\/|\\/.test(given) ? given.replace(/[\\/]+/g, "/") : given;
  if (!MODULE_PATH.test(path)) return;
  if (path !== given) req.url = path + url.slice(end);
  const method = req.method ?? "";
  if (!ROUTED.has(method)) {
    req.headers[originalMethodHeader] = method;
    req.method = "PATCH";
  }
}
