import { request, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";

export interface RawAnswer {
  status: number;
  /** As Node parsed them: fetch would hide some (Connection) and refuse some methods (TRACE, CONNECT). */
  headers: IncomingHttpHeaders;
  text: string;
}

/** One request on its own socket through node:http, answered with the raw status, headers and body text. */
export function sendOnOwnSocket(
  url: URL,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Writes bytes as they are (malformed HTTP, half a body) on a socket of its own; with `closeAfterMs` the client
 * closes then, else it waits for the server to close. Resolves with everything the server sent.
 */
export function sendBytes(url: URL, bytes: string, closeAfterMs?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = "";
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    const close = closeAfterMs === undefined ? undefined : setTimeout(() => socket.destroy(), closeAfterMs);
    const giveUp = setTimeout(() => socket.destroy(new Error("the server kept the socket open for 30 s")), 30_000);
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("error", (error) => (error.message.startsWith("the server") ? reject(error) : undefined));
    socket.on("close", () => {
      clearTimeout(close);
      clearTimeout(giveUp);
      resolve(received);
    });
  });
}
