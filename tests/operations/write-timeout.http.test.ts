import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { WRITE_TIMEOUT_MS } from "@/lib/preload/server-timeouts.mjs";
import { TEST_KEY } from "../helpers/api";
import { serverForThisFile } from "../helpers/server";

/**
 * The write timeout, over HTTP against the production server: a client that asks for more than the socket buffers
 * hold and never reads kept its connection (and the answers pipelined behind it) open for as long as it liked.
 * lib/preload/next-server-preload.mjs destroys a connection whose pending answer makes no progress for
 * WRITE_TIMEOUT_MS.
 */
const running = serverForThisFile();

/** 400 pipelined GET /openapi.json (78 KB each, 31 MB in all): far more than the kernel buffers on both sides. */
const PIPELINED = 400;

async function healthy(): Promise<number> {
  const response = await fetch(`${running.server.baseUrl}/api/leads/sources`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  return response.status;
}

describe("a client that never reads its answers", () => {
  it(`is disconnected once its answer made no progress for ${WRITE_TIMEOUT_MS / 1000} s, and the server keeps serving others`, async () => {
    const { port } = new URL(running.server.baseUrl);
    const socket = connect(Number(port), "127.0.0.1");
    socket.pause(); // reads at most one buffer's worth, then leaves everything in the kernel
    let received = "";
    let closed = false;
    socket.on("data", (chunk) => (received += chunk.toString("latin1")));
    socket.on("error", () => {}); // a reset is one way of being closed
    const closing = new Promise<void>((resolve) =>
      socket.on("close", () => {
        closed = true;
        resolve();
      }),
    );
    socket.write("GET /openapi.json HTTP/1.1\r\nHost: localhost\r\n\r\n".repeat(PIPELINED));

    // Within the bound, Node's check interval (1 s) and slack for a loaded machine; others are served meanwhile.
    await new Promise((resolve) => setTimeout(resolve, WRITE_TIMEOUT_MS / 2));
    expect(await healthy()).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, WRITE_TIMEOUT_MS / 2 + 10_000));

    // Reading now gets what was in flight when the server gave up, then the end: not the 400 answers it asked for.
    socket.resume();
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    socket.destroy();
    const answered = received.split("HTTP/1.1 200 OK").length - 1;
    expect(closed).toBe(true);
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThan(PIPELINED);
    expect(await healthy()).toBe(200);
  }, 90_000);
});
