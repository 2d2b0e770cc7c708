import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { REQUEST_TIMEOUT_MS } from "@/lib/preload/server-timeouts.mjs";
import { TEST_KEY } from "../helpers/api";
import { serverForThisFile } from "../helpers/server";

/**
 * The request timeout, over HTTP against the production server: a client that sends
 * its body a byte at a time would hold a socket for Node's default request timeout,
 * with the key or without. The launcher bounds a whole request to 30 s
 * (lib/preload/next-server-preload.mjs); the server then answers 408 and closes.
 */
const running = serverForThisFile();

/**
 * Sends headers announcing 1,000 bytes, then one byte every 2 s; resolves with what came back and when the server
 * closed.
 */
function slowPost(headers: string[]): Promise<{ answer: string; closedAfterMs: number }> {
  const { port } = new URL(running.server.baseUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), "127.0.0.1");
    let answer = "";
    const drip = setInterval(() => socket.write("x"), 2_000);
    const giveUp = setTimeout(() => socket.destroy(new Error("still open after 60 s")), 60_000);
    socket.on("data", (chunk) => (answer += chunk));
    socket.on("error", (error) => (answer ? undefined : reject(error)));
    socket.on("close", () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      resolve({ answer, closedAfterMs: Date.now() - started });
    });
    socket.write(
      [
        "POST /api/leads HTTP/1.1",
        "Host: localhost",
        "Content-Type: application/json",
        "Content-Length: 1000",
        ...headers,
        "",
        "",
      ].join("\r\n"),
    );
  });
}

describe("a slow request body", () => {
  it(`is cut off after the ${REQUEST_TIMEOUT_MS / 1000} s request timeout, with the key or without, and the server keeps serving`, async () => {
    const [withKey, anonymous] = await Promise.all([slowPost([`Authorization: Bearer ${TEST_KEY}`]), slowPost([])]);
    for (const { answer, closedAfterMs } of [withKey, anonymous]) {
      // Within the timeout plus Node's check interval (1 s) and scheduling slack on a loaded machine.
      expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 10_000);
      // The anonymous one may have been answered 401 at once; either way nothing holds the socket longer.
      expect(answer).toMatch(/^(HTTP\/1\.1 (408|401) |$)/);
    }
    expect(withKey.answer).toMatch(/^(HTTP\/1\.1 408 |$)/);
    // Logged as what it was: the server's timeout (408), not a server failure (the anonymous one may be a 401).
    const logged = () =>
      running.server
        .output()
        .split("\n")
        .filter((line) => line.includes('"path":"/api/leads"') && !line.includes('"status":401'));
    for (const deadline = Date.now() + 5_000; logged().length === 0 && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logged().map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ msg: "request", method: "POST", status: 408, code: "request-timeout" }),
    ]);
    const next = await fetch(`${running.server.baseUrl}/api/leads/sources`, {
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    expect(next.status).toBe(200);
  }, 90_000);
});
