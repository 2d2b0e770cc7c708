import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { gateCheck, gateEdit, gateStep } from "@/scripts/host/check/gate";

/**
 * `host:check`'s gate line (scripts/host/check/gate.ts) against a host's server over real HTTP: a stand-in server
 * answering as a host's gate would, since what is decided is what the check makes of each answer.
 */
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

const KEY = "k".repeat(40);
const GATE = "src/proxy.ts";
/** The gate's text: a proxy function of the host's, its request named `req`. */
const GATE_TEXT = `import { NextResponse, type NextRequest } from "next/server";

export function proxy(req: NextRequest) {
  return req.cookies.has("session") ? NextResponse.next() : NextResponse.redirect(new URL("/login", req.url));
}
`;
/** The fix the FAIL line gives: the install's step for that gate, and without its text, the edit in general terms. */
const FIX = gateStep(GATE, gateEdit(GATE_TEXT)!);
const GENERAL_FIX = gateStep(GATE, gateEdit(undefined)!);

/** A server answering each request by `answer`; its base URL, and the requests it saw (path and authorization). */
async function hostServer(answer: (request: IncomingMessage, response: ServerResponse) => void) {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(`${request.url} ${request.headers.authorization ?? "-"}`);
    answer(request, response);
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
};

describe("host:check's gate line", () => {
  it("without a server to try, FAIL: naming the host's gate where it has one, and how to give the server", async () => {
    expect(await gateCheck(GATE, undefined, KEY)).toEqual([
      "FAIL",
      "gate: the module's paths were not tried through the host's src/proxy.ts, which runs before them; " +
        "start the host and give its base URL: --url http://localhost:3000 or LEADS_HOST_URL",
    ]);
    expect(await gateCheck(null, undefined, KEY)).toEqual([
      "FAIL",
      "gate: the module's paths were not tried through the host's server; " +
        "start the host and give its base URL: --url http://localhost:3000 or LEADS_HOST_URL",
    ]);
  });

  it("ok once the operation with the key, /docs and /openapi.json all answer through the host", async () => {
    const host = await hostServer((_, response) => json(response, 200, {}));
    expect(await gateCheck(GATE, host.url, KEY)).toEqual([
      "ok",
      `gate: GET /api/leads/sources with the key, /docs and /openapi.json answered through ${host.url}`,
    ]);
    expect(host.seen).toEqual([`/api/leads/sources Bearer ${KEY}`, "/docs -", "/openapi.json -"]);
  });

  it("FAIL naming the gate and its fix when the gate sends /docs to the login, the operation let through", async () => {
    const host = await hostServer((request, response) => {
      if (request.url === "/docs") response.writeHead(307, { location: "/login" }).end();
      else json(response, 200, {});
    });
    expect(await gateCheck(GATE, host.url, KEY, GATE_TEXT)).toEqual([
      "FAIL",
      `gate: GET /docs was redirected (307 to /login) by the host's src/proxy.ts; ${FIX}`,
    ]);
    expect(FIX).toContain(
      "put `if (/^\\/(api\\/leads|api\\/health|docs|openapi\\.json|swagger-ui)(\\/|$)/.test(req.nextUrl.pathname)) " +
        "return NextResponse.next();` on a new line after `export function proxy(req: NextRequest) {`",
    );
  });

  it("a refusal that is not the module's JSON error is the gate's; the module's own is named as the module's", async () => {
    const page = await hostServer((_, response) => response.writeHead(401, { "content-type": "text/html" }).end("<p>"));
    expect(await gateCheck(GATE, page.url, KEY)).toEqual([
      "FAIL",
      `gate: GET /api/leads/sources with the key was refused (401) by the host's src/proxy.ts; ${GENERAL_FIX}`,
    ]);
    const own = await hostServer((_, response) => json(response, 401, { code: "unauthorized" }));
    expect(await gateCheck(null, own.url, "wrong")).toEqual([
      "FAIL",
      "gate: GET /api/leads/sources with the key passed the host's server; the module answered 401 unauthorized",
    ]);
  });

  it("FAIL when nothing answers at the URL given", async () => {
    const gone = await hostServer(() => {});
    await new Promise((done) => servers.pop()!.close(done));
    expect(await gateCheck(GATE, gone.url, KEY)).toEqual([
      "FAIL",
      `gate: no answer from ${gone.url} to GET /api/leads/sources with the key; start the host or give its base URL`,
    ]);
  });
});
