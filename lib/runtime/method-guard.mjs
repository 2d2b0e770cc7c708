// Applied to every request by lib/runtime/next-server-preload.mjs. Next answers
// methods its routes cannot have (QUERY, PROPFIND, LOCK, MKCOL...) with an empty
// 400, and TRACE, which the Fetch standard forbids, with a text/plain 500, before
// any route or proxy runs. Under /api this hands such a request to the routes as a
// PATCH (which no route supports), with the method as sent in one header, so the
// request wrapper answers it like any unsupported method: JSON 405 with Allow, or
// 404 on an unknown path, with a request id and an access log line. It sits in
// front of Next rather than in a proxy.ts: with any proxy, Next copies every request
// body (up to 10 MB) and waits for the whole upload before the route runs, so a
// chunked body over 1 MiB would not be refused as soon as the limit was passed
// (measured: no 413 while the upload stayed open). A routed method costs one Set
// lookup and one property check here.
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
