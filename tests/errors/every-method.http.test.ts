import { readdirSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TEST_KEY } from "../helpers/api";
import { sendOnOwnSocket, type RawAnswer } from "../helpers/raw-http";
import { serverForThisFile } from "../helpers/server";

/**
 * Every method Node's HTTP parser accepts, on every path under /api and on unknown
 * ones, against the production server: Next refuses many of them (TRACE with a
 * text/plain 500, QUERY, PROPFIND... with an empty 400) before route code runs,
 * so only HTTP shows what a client really gets (lib/preload/method-guard.mjs answers them).
 */
const running = serverForThisFile();

function send(method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return sendOnOwnSocket(new URL(path, running.server.baseUrl), method, {
    authorization: `Bearer ${TEST_KEY}`,
    ...headers,
  });
}

/** The methods of each route file (spec "Endpoints", aliases and health checks). */
const ALLOW: Record<string, string[]> = {
  "/api/leads": ["GET", "POST"],
  "/api/leads/sources": ["GET"],
  "/api/leads/ads": ["GET"],
  "/api/sources": ["GET"],
  "/api/leads/agents": ["GET"],
  "/api/agents": ["GET"],
  "/api/health/live": ["GET"],
  "/api/health/ready": ["GET"],
};
const UNKNOWN_PATHS = ["/api", "/api/nowhere", "/api/leads/nowhere", "/api/leads/sources/x"];
// CONNECT asks for a tunnel, not a resource: Node's HTTP server closes such a connection
// itself unless a tunnel handler exists, so no response (JSON or other) is possible.
const METHODS = http.METHODS.filter((method) => method !== "CONNECT");

describe("every method under /api over HTTP", () => {
  it("covers exactly the route files under app/api", () => {
    const routes = readdirSync(path.resolve("app/api"), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith("route.ts") && !file.includes("[["))
      .map((file) => `/api/${path.dirname(file)}`);
    expect(Object.keys(ALLOW).sort()).toEqual(routes.sort());
  });

  it.each(Object.keys(ALLOW))(
    "%s: supported methods reach the route, all others are JSON 405 with Allow",
    async (apiPath) => {
      const allow = ALLOW[apiPath];
      for (const method of METHODS) {
        const answer = await send(method, apiPath);
        expect(answer.headers["cache-control"], method).toBe("no-store");
        expect(answer.headers["content-type"], method).toMatch(/^application\/json/);
        if (allow.includes(method) || (method === "HEAD" && allow.includes("GET"))) {
          expect(answer.status, method).not.toBe(405);
          continue;
        }
        expect({ method, status: answer.status, allow: answer.headers.allow }).toEqual({
          method,
          status: 405,
          allow: allow.join(", "),
        });
        expect(answer.headers["x-request-id"], method).toMatch(/^[0-9a-f-]{36}$/);
        expect(JSON.parse(answer.text)).toEqual({
          error: `${method} is not supported here; use ${allow.join(", ")}`,
          code: "METHOD_NOT_ALLOWED",
          requestId: answer.headers["x-request-id"],
        });
      }
    },
  );

  it("answers HEAD as GET without a body: the status of GET, 401 without the key", async () => {
    const head = await send("HEAD", "/api/leads");
    expect({ status: head.status, body: head.text }).toEqual({ status: 200, body: "" });
    const anonymous = await send("HEAD", "/api/leads/sources", { authorization: "" });
    expect({ status: anonymous.status, body: anonymous.text }).toEqual({ status: 401, body: "" });
  });

  it("names the method as sent, whatever method header a client adds", async () => {
    const answer = await send("PATCH", "/api/leads", { "x-lead-intake-method": "X".repeat(4000) });
    expect(answer.status).toBe(405);
    expect(JSON.parse(answer.text).error).toBe("PATCH is not supported here; use GET, POST");
  });

  it.each(UNKNOWN_PATHS)("%s: every method is JSON 404", async (apiPath) => {
    for (const method of METHODS) {
      const answer = await send(method, `${apiPath}?x=1`);
      expect({ method, status: answer.status }).toEqual({ method, status: 404 });
      expect(answer.headers["cache-control"], method).toBe("no-store");
      expect(answer.headers["content-type"], method).toMatch(/^application\/json/);
      expect(answer.headers["x-request-id"], method).toMatch(/^[0-9a-f-]{36}$/);
      if (method !== "HEAD") {
        expect(JSON.parse(answer.text), method).toEqual({
          error: "No such API path",
          code: "NOT_FOUND",
          requestId: answer.headers["x-request-id"],
        });
      }
    }
  });
});

describe("what answering them costs the routes", () => {
  // Why the answers come from lib/preload/method-guard.mjs and not from a proxy.ts: with any proxy, Next copies each
  // request body and waits for the whole upload before the route runs, so this 413 came only after the upload ended.
  it("refuses a chunked POST body over 1 MiB while the upload is still open", async () => {
    const request = http.request(new URL("/api/leads", running.server.baseUrl), {
      method: "POST",
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        "content-type": "application/json",
        "transfer-encoding": "chunked",
      },
    });
    request.on("error", () => {}); // the server closes the connection after its answer
    const answered = new Promise<number>((resolve) =>
      request.on("response", (response) => resolve(response.statusCode!)),
    );
    request.write('{"remark":"');
    for (let i = 0; i < 24; i++) request.write("x".repeat(64 * 1024)); // 1.5 MiB, and the upload is never ended
    expect(await answered).toBe(413);
    request.destroy();
  });
});
