import http from "node:http";
import { describe, expect, it } from "vitest";
import { stackTraceLines } from "../helpers/hostile";
import { sendOnOwnSocket } from "../helpers/raw-http";
import { serverForThisFile } from "../helpers/server";

/**
 * Every method Node's HTTP parser accepts on the documentation's routes, against the production server: GET and HEAD
 * serve them; every other, TRACE, QUERY and PROPFIND included (which Next refuses before any route runs), answers the
 * API's JSON 405 with Allow: GET, and the server's stderr keeps one JSON line per entry, with no stack trace.
 */
const running = serverForThisFile();
const PATHS = ["/docs", "/openapi.json", "/swagger-ui/swagger-ui.css", "/swagger-ui/swagger-ui-bundle.js"];
// CONNECT asks for a tunnel: Node closes such a connection itself (tests/errors/every-method.http.test.ts).
const METHODS = http.METHODS.filter((method) => method !== "CONNECT");

describe("every method on the documentation's routes over HTTP", () => {
  it.each(PATHS)("%s: GET and HEAD serve it, every other method is the JSON 405 with Allow: GET", async (path) => {
    for (const method of METHODS) {
      const answer = await sendOnOwnSocket(new URL(path, running.server.baseUrl), method);
      expect(answer.headers["x-content-type-options"], method).toBe("nosniff");
      if (method === "GET" || method === "HEAD") {
        expect({ method, status: answer.status }).toEqual({ method, status: 200 });
        continue;
      }
      expect({ method, status: answer.status, allow: answer.headers.allow }).toEqual({
        method,
        status: 405,
        allow: "GET",
      });
      expect(answer.headers["cache-control"], method).toBe("no-store");
      expect(answer.headers["content-type"], method).toMatch(/^application\/json/);
      expect(answer.headers["x-request-id"], method).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(answer.text), method).toEqual({
        error: `${method} is not supported here; use GET`,
        code: "METHOD_NOT_ALLOWED",
        requestId: answer.headers["x-request-id"],
      });
    }
  });

  it("leaves no stack trace on the server's output, and every line it logged is one JSON object", async () => {
    for (const path of PATHS) await sendOnOwnSocket(new URL(path, running.server.baseUrl), "TRACE");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const output = running.server.output();
    expect(stackTraceLines(output)).toEqual([]);
    expect(output).not.toContain("⨯");
    const logged = output.split("\n").filter((line) => line.startsWith("{"));
    for (const line of logged) expect(() => JSON.parse(line), line).not.toThrow();
    const traces = logged.map((line) => JSON.parse(line)).filter((line) => line.method === "TRACE");
    expect(traces.map((line) => [line.path, line.status]).slice(-PATHS.length)).toEqual(PATHS.map((p) => [p, 405]));
  });
});
