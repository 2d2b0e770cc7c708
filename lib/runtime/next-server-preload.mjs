// Loaded into the `next start` process by the launcher (node --import), for what
// `next start` cannot be told: it only takes --keepAliveTimeout, and creates its
// HTTP server with Node's defaults, so a client sending a body slowly held a
// socket for ~300 s (requestTimeout), anonymous ones too. No custom server: the
// defaults of the one server Next creates are set here, nothing else changes.
// Each request first passes lib/runtime/method-guard.mjs (methods Next refuses before any route runs).
import http from "node:http";
import { guardMethod } from "./method-guard.mjs";
import { CHECK_INTERVAL_MS, HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "./server-timeouts.mjs";

const createServer = http.createServer;
http.createServer = (options, listener) =>
  typeof options === "function" || options === undefined
    ? createServer(defaults({}), guarded(options))
    : createServer(defaults(options), guarded(listener));

function guarded(listener) {
  if (!listener) return listener;
  return function (req, res) {
    guardMethod(req);
    return listener.call(this, req, res);
  };
}

function defaults(options) {
  return {
    requestTimeout: REQUEST_TIMEOUT_MS,
    headersTimeout: HEADERS_TIMEOUT_MS,
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
    ...options,
  };
}

// Started by the launcher with an IPC channel: when the launcher is gone (even by
// kill -9) the channel closes, and the server drains and exits as on SIGTERM
// instead of living on as an orphan holding the port.
if (process.send) {
  process.channel?.unref();
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
}
