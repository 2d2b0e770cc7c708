import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gateEdit, gateStep, MODULE_PATHS, MODULE_PATHS_PATTERN } from "@/scripts/host/check/gate";
import { FIXTURES } from "../helpers/host-app";

/**
 * The install's edit for each form a host's gate takes (scripts/host/check/gate.ts), read from the sample gates in
 * tests/fixtures/gates: the form, and the exact code and where it goes. tests/host/gate-forms.command.test.ts
 * compiles and runs each edited gate with its packages.
 */
const gate = (name: string) => readFileSync(path.join(FIXTURES, "gates", name), "utf8");
const passing = (request: string, result = " NextResponse.next()") =>
  `if (${MODULE_PATHS_PATTERN}.test(${request}.nextUrl.pathname)) return${result};`;
const LOOKAHEAD = String.raw`(?:api/leads|api/health|docs|openapi\\.json|swagger-ui)(?:/|$)`;

describe("the edit that lets the module's paths through a host's gate, in the form the gate takes", () => {
  it("keeps MODULE_PATHS the one list of the paths, as a pattern for the path and under it only", () => {
    expect(MODULE_PATHS_PATTERN).toBe(String.raw`/^\/(api\/leads|api\/health|docs|openapi\.json|swagger-ui)(\/|$)/`);
    const pattern = new RegExp(MODULE_PATHS_PATTERN.slice(1, -1));
    for (const p of MODULE_PATHS)
      expect([pattern.test(p), pattern.test(`${p}/x`), pattern.test(`${p}x`)]).toEqual([true, true, false]);
  });

  it.each([
    ["function-proxy.ts", "request", "export function proxy(request: NextRequest) {"],
    ["better-auth.ts", "req", "export async function middleware(req: NextRequest) {"],
  ])("a function of the host's (%s): first in it, its parameter named", (file, request, line) => {
    expect(gateEdit(gate(file))).toEqual({
      form: "function",
      sentence: expect.stringMatching(/^it is the host's function (proxy|middleware): let \/api\/leads, /),
      code: passing(request),
      place: { after: line },
    });
  });

  it("Auth.js's auth((req) => ...): first in the callback, by its parameter, returning nothing without NextResponse", () => {
    expect(gateEdit(gate("authjs-callback.ts"))).toMatchObject({
      form: "auth-callback",
      code: passing("req", ""),
      place: { after: "export default auth((req) => {" },
    });
    expect(gateEdit(gate("authjs-async-callback.ts"))).toMatchObject({
      form: "auth-callback",
      code: passing("request"),
      place: { after: "export const proxy = auth(async (request) => {" },
    });
  });

  it("Auth.js's auth exported as the gate: its config.matcher's lookahead, or a matcher of the module's alone", () => {
    expect(gateEdit(gate("authjs-export.ts"))).toMatchObject({
      form: "auth-export",
      code: `"/((?!${LOOKAHEAD}|api|_next/static|_next/image|favicon.ico).*)"`,
      place: { replace: `"/((?!api|_next/static|_next/image|favicon.ico).*)"` },
    });
    expect(gateEdit(gate("authjs-export-default.ts"))).toMatchObject({
      form: "auth-export",
      code: `export const config = { matcher: ["/((?!${LOOKAHEAD}).*)"] };`,
      place: { atEnd: true },
    });
    const withConfig = `export { auth as middleware } from "./auth";\n\nexport const config = {\n  runtime: "nodejs",\n};\n`;
    expect(gateEdit(withConfig)).toMatchObject({
      code: `matcher: ["/((?!${LOOKAHEAD}).*)"],`,
      place: { after: "export const config = {" },
    });
  });

  it("Auth.js's auth exported, its matcher reaching the module's paths by another entry: the edit in general", () => {
    const reaching = `export { auth as proxy } from "./auth";\nexport const config = { matcher: ["/api/:path*"] };\n`;
    expect(gateEdit(reaching)?.form).toBe("unknown");
    // A matcher that never reaches them needs no edit.
    expect(
      gateEdit(`export { auth as proxy } from "./auth";\nexport const config = { matcher: ["/referrals/:path*"] };\n`),
    ).toBeNull();
  });

  it("Clerk: the module's pattern first among the public routes, else first in the host's function", () => {
    expect(gateEdit(gate("clerk.ts"))).toMatchObject({
      form: "clerk",
      code: `isPublicRoute = createRouteMatcher([${MODULE_PATHS_PATTERN}, `,
      place: { replace: "isPublicRoute = createRouteMatcher([" },
    });
    expect(gateEdit(gate("clerk-protected.ts"))).toMatchObject({
      form: "clerk",
      code: passing("request", ""),
      place: { after: "export default clerkMiddleware(async (auth, request) => {" },
    });
  });

  it("a gate read as none of these, or not read: the statement in general, with no place", () => {
    for (const text of [undefined, "export const proxy = handler;\n"])
      expect(gateEdit(text)).toEqual({
        form: "unknown",
        sentence: expect.stringContaining("first in the function that gets the request"),
        code: passing("request"),
        place: { nowhere: true },
      });
  });

  it("prints the edit as one step naming the gate, the code and where it goes", () => {
    expect(gateStep("src/proxy.ts", gateEdit(gate("function-proxy.ts"))!)).toBe(
      "Edit src/proxy.ts: it is the host's function proxy: let /api/leads, /api/health, /docs, /openapi.json, " +
        `/swagger-ui through first in it, before its session check: put \`${passing("request")}\` on a new line ` +
        "after `export function proxy(request: NextRequest) {`",
    );
    expect(gateStep("middleware.ts", gateEdit(gate("clerk.ts"))!)).toMatch(
      /^Edit middleware\.ts: it is Clerk's clerkMiddleware\(\): make .* public routes, first in isPublicRoute: replace `isPublicRoute = createRouteMatcher\(\[` with `/,
    );
    expect(gateStep("proxy.ts", gateEdit(gate("authjs-export-default.ts"))!)).toMatch(
      /: add `export const config = .*` at its end$/,
    );
  });
});
