// Preloaded into `next start` by scripts/start.mjs (node --import). Next builds a
// fetch Request for every request, and the Fetch standard forbids the method
// TRACE: Next answers it 500 text/plain before proxy.ts or any route runs. This
// answers TRACE under /api as proxy.ts answers other unsupported methods (JSON 405
// with Allow, or 404 on an unknown path), before Next sees it. Other paths and
// methods go to Next untouched.
import http from "node:http";
import { readFileSync } from "node:fs";

const METHODS_BY_PATH = JSON.parse(readFileSync(new URL("../lib/api/methods.json", import.meta.url), "utf8"));

function answerTrace(req, res) {
  const path = req.url.split("?")[0];
  const allow = Object.hasOwn(METHODS_BY_PATH, path) ? METHODS_BY_PATH[path].join(", ") : null;
  const [status, body] = allow
    ? [405, { error: `TRACE is not supported here; use ${allow}`, code: "METHOD_NOT_ALLOWED" }]
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
      const api = req.url === "/api" || req.url.startsWith("/api/") || req.url.startsWith("/api?");
      if (req.method === "TRACE" && api) return answerTrace(req, res);
      return listener.call(this, req, res);
    };
  }
  return createServer.apply(this, args);
};
