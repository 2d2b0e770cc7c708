// Loaded into `next start` by the launcher (node --import) to set what `next start` cannot be told: request and
// write timeouts on the one server Next creates, method guarding, lead creation's load shedding and JSON answers to
// malformed requests (docs/decisions.md, "Request timeout").
import http from "node:http";
import { answerClientError } from "./client-errors.mjs";
import { shedCreation } from "./creation-shed.mjs";
import { guardRequest } from "./method-guard.mjs";
import {
  CHECK_INTERVAL_MS,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  WRITE_TIMEOUT_MS,
} from "./server-timeouts.mjs";

/** @typedef {import("node:http").RequestListener} Listener */
/** @typedef {import("node:http").ServerOptions} Options */

const createServer = http.createServer;
http.createServer = /** @type {typeof http.createServer} */ (
  /** @type {(options?: Options | Listener, listener?: Listener) => http.Server} */
  (options, listener) =>
    deepBacklog(
      boundWrites(
        typeof options === "function" || options === undefined
          ? createServer(defaults({}), guarded(options))
          : createServer(defaults(options), guarded(listener)),
      ),
    ).on("clientError", answerClientError)
);

/**
 * @param {Listener | undefined} listener
 * @returns {Listener | undefined}
 */
function guarded(listener) {
  if (!listener) return listener;
  /** @this {http.Server} @type {Listener} */
  return function (req, res) {
    guardRequest(req);
    shedCreation(req, res, () => listener.call(this, req, res));
  };
}

/**
 * Room for a burst's connections in the kernel's queue of accepted ones: past Node's 511, Linux answers with SYN
 * cookies and drops the handshake's last step, and each such client waits 1, 3, 7 s for its resend before it is even
 * read (docs/decisions.md, "Creation sheds load"). Linux caps it at net.core.somaxconn.
 */
const LISTEN_BACKLOG = 4096;

/**
 * Listens as Next asks, `listen(port, hostname)`, with LISTEN_BACKLOG.
 * @param {http.Server} server
 */
function deepBacklog(server) {
  const listen = server.listen;
  server.listen = /** @type {typeof server.listen} */ (
    /** @param {unknown[]} args */
    (...args) =>
      typeof args[0] === "number" && (args[1] === undefined || typeof args[1] === "string") && args.length <= 2
        ? listen.call(server, { port: args[0], host: args[1], backlog: LISTEN_BACKLOG })
        : listen.apply(server, /** @type {Parameters<typeof listen>} */ (args))
  );
  return server;
}

/** @param {Options} options */
function defaults(options) {
  return {
    requestTimeout: REQUEST_TIMEOUT_MS,
    headersTimeout: HEADERS_TIMEOUT_MS,
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    ...options,
  };
}

/**
 * Destroys a connection whose unsent response bytes made no progress for WRITE_TIMEOUT_MS: Node has no write
 * timeout, so a client that never reads would hold the socket for as long as it keeps the connection.
 * @param {http.Server} server
 */
function boundWrites(server) {
  /** @type {Map<import("node:net").Socket, { taken: number, since: number } | undefined>} */
  const stalls = new Map(); // socket -> { taken, since } while it has pending bytes, else undefined
  server.on("connection", (socket) => {
    stalls.set(socket, undefined);
    socket.once("close", () => stalls.delete(socket));
  });
  const timer = setInterval(() => {
    const now = Date.now();
    for (const [socket, stall] of stalls) {
      const pending = socket.writableLength;
      if (pending === 0) {
        if (stall) stalls.set(socket, undefined);
        continue;
      }
      const taken = socket.bytesWritten - pending;
      if (!stall || stall.taken !== taken) stalls.set(socket, { taken, since: now });
      else if (now - stall.since >= WRITE_TIMEOUT_MS) socket.destroy();
    }
  }, CHECK_INTERVAL_MS);
  timer.unref();
  server.once("close", () => clearInterval(timer));
  return server;
}

// Started by the launcher with an IPC channel: when the launcher is gone (even by
// kill -9) the channel closes, and the server drains and exits as on SIGTERM
// instead of living on as an orphan holding the port.
if (process.send) {
  process.channel?.unref();
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
}
