// What `next start` answers when Node's HTTP parser refuses a request or a request's timeout ends it (the server's
// 'clientError' event): the module's JSON MALFORMED_REQUEST instead of Node's bare 400 without a request id.
import { randomUUID } from "node:crypto";
import { MALFORMED_REQUEST } from "../api/malformed-request.mjs";
import { logLine } from "../log-line.mjs";

/** Node's own answers (its defaults) to the errors that are not a malformed request. @type {Record<string, string>} */
const NODE_ANSWERS = {
  ERR_HTTP_REQUEST_TIMEOUT: "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n",
  HPE_HEADER_OVERFLOW: "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n",
};
const NODE_BAD_REQUEST = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n";

/** The client ended its side of the connection in the middle of a request (its body cut short). */
const CLIENT_ENDED = "HPE_INVALID_EOF_STATE";

/** As lib/api/log.ts reads it: the access log is on unless LEADS_ACCESS_LOG=off. */
const ACCESS_LOG = process.env.LEADS_ACCESS_LOG !== "off";

/**
 * Answers a malformed request (a parse error, HPE_*) with the module's JSON 400 and closes the connection; other
 * client errors as Node would (docs/decisions.md, "Malformed HTTP answers JSON"). A request already handed to a
 * route has its body end with this error, so the route's wrapper logs it.
 * @param {Error & { code?: unknown }} error
 * @param {import("node:stream").Duplex & { _httpMessage?: import("node:http").ServerResponse }} socket
 */
export function answerClientError(error, socket) {
  const code = typeof error?.code === "string" ? error.code : "";
  if (code === CLIENT_ENDED) {
    // Nothing to answer: the request wrapper logs the request in flight, if any, as client-closed.
    socket.destroy();
    return;
  }
  // The response in flight on this socket, as Node's default handler reads it: once a byte of it is sent, nothing
  // else may be.
  const inFlight = socket._httpMessage;
  inFlight?.req?.destroy(error);
  if (socket.writable && !inFlight?.headersSent) {
    if (Object.hasOwn(NODE_ANSWERS, code)) socket.write(NODE_ANSWERS[code]);
    else if (!code.startsWith("HPE_")) socket.write(NODE_BAD_REQUEST);
    else {
      const requestId = randomUUID();
      socket.write(malformedAnswer(requestId));
      if (!inFlight && ACCESS_LOG)
        logLine("info", "request", { requestId, status: MALFORMED_REQUEST.status, code: "MALFORMED_REQUEST" });
    }
  }
  socket.destroy(error);
}

/** @param {string} requestId */
function malformedAnswer(requestId) {
  const body = JSON.stringify({ error: MALFORMED_REQUEST.message, code: "MALFORMED_REQUEST", requestId });
  return [
    `HTTP/1.1 ${MALFORMED_REQUEST.status} Bad Request`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Cache-Control: no-store",
    "X-Content-Type-Options: nosniff",
    `X-Request-Id: ${requestId}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}
