// Preloaded into `next start` by scripts/start.mjs (node --import). Next answers
// methods its routes cannot have (QUERY, PROPFIND, LOCK, MKCOL...) with an empty
// 400, and TRACE, which the Fetch standard forbids, with a text/plain 500, before
// any route or proxy runs. This answers them under /api as the routes answer PUT
// or DELETE: JSON 405 with Allow (the path's methods from lib/api/methods.json),
// or 404 on an unknown path. It sits in front of Next rather than in a proxy.ts:
// with any proxy, Next copies every request body (up to 10 MB) and waits for the
// whole upload before the route runs, so a chunked body over 1 MiB was no longer
// refused as soon as the limit was passed (measured: no 413 while the upload
// stayed open). Every routed method costs one Set lookup here.
import http from "node:http";
import { readFileSync } from "node:fs";

const ROUTED = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const METHODS_BY_PATH = JSON.parse(readFileSync(new URL("../lib/api/methods.json", import.meta.url), "utf8"));

function refuse(req, res) {
  const path = req.url.split("?")[0];
  const allow = Object.hasOwn(METHODS_BY_PATH, path) ? METHODS_BY_PATH[path].join(", ") : null;
  const [status, body] = allow
    ? [405, { error: `${req.method} is not supported here; use ${allow}`, code: "METHOD_NOT_ALLOWED" }]
    : [404, { error: "No such API path", code: "NOT_FOUND" }];
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Cache-Control": "no-store",
    ...(allow && { Allow: allow }),
  });
  res.end(JSON.stringify(body));
}

const createServer = http.createServer;
http.createServer = function (...args) {
  const i = args.findIndex((arg) => typeof arg === "function");
  if (i >= 0) {
    const listener = args[i];
    args[i] = function (req, res) {
      if (ROUTED.has(req.method) || !/^\/api(\/|\?|$)/.test(req.url)) return listener.call(this, req, res);
      return refuse(req, res);
    };
  }
  return createServer.apply(this, args);
};
