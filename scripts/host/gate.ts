// A host's own proxy.ts or middleware.ts (a sign-in gate, as Auth.js, Clerk and better-auth set one up) runs before
// the module's routes: it must let the module's paths through, which the install says and `host:check` tests.

/** The module's public paths: its operations, health checks, the documentation page, its document and assets. */
export const MODULE_PATHS = ["/api/leads", "/api/health", "/docs", "/openapi.json", "/swagger-ui"];

/** A regular expression literal matching MODULE_PATHS and the paths under them, as the host's gate would test one. */
export const MODULE_PATHS_PATTERN = String.raw`/^\/(${MODULE_PATHS.map((p) =>
  p
    .slice(1)
    .replace(/\./g, String.raw`\.`)
    .replace(/\//g, String.raw`\/`),
).join("|")})(\/|$)/`;

/** The install's one line for a host with its own gate. */
export function gateLine(gate: string): string {
  return (
    `${gate} is the host's own and left as it is: let ${MODULE_PATHS.join(", ")} through before its session ` +
    `check, first in it: if (${MODULE_PATHS_PATTERN}.test(request.nextUrl.pathname)) return NextResponse.next();`
  );
}

/** The paths `host:check` tries through the host's server: an operation with the key, the page and its document. */
const TRIED = ["/api/leads/sources", "/docs", "/openapi.json"];

/**
 * `host:check`'s line on the way in: the module's paths through the host's running server at `baseUrl`. A redirect,
 * or a refusal that is not the module's JSON error, is the host's gate stopping the module. Without a server to try
 * it fails: a gate found only when asked is how the module ends up behind the host's login.
 */
export async function gateCheck(
  gate: string | null,
  baseUrl: string | undefined,
  key: string | undefined,
): Promise<["ok" | "FAIL" | "note", string]> {
  const gateName = gate ? `the host's ${gate}` : "the host's server";
  if (!baseUrl)
    return [
      "FAIL",
      `gate: the module's paths were not tried through ${gateName}${gate ? ", which runs before them" : ""}; ` +
        "start the host and give its base URL: --url http://localhost:3000 or LEADS_HOST_URL",
    ];
  const fix = gate ? `; ${gateLine(gate)}` : "";
  for (const [i, pathname] of TRIED.entries()) {
    const tried = i === 0 ? `GET ${pathname} with the key` : `GET ${pathname}`;
    let response: Response;
    try {
      response = await fetch(new URL(pathname, baseUrl), {
        redirect: "manual",
        headers: i === 0 ? { authorization: `Bearer ${key ?? ""}` } : {},
        signal: AbortSignal.timeout(10_000),
      });
    } catch {
      return ["FAIL", `gate: no answer from ${baseUrl} to ${tried}; start the host or give its base URL`];
    }
    if (response.status >= 300 && response.status < 400)
      return [
        "FAIL",
        `gate: ${tried} was redirected (${response.status} to ${response.headers.get("location")}) by ${gateName}${fix}`,
      ];
    if (response.ok) {
      await response.body?.cancel();
      continue;
    }
    const body = (await response.json().catch(() => undefined)) as { code?: unknown } | undefined;
    if (typeof body?.code !== "string")
      return ["FAIL", `gate: ${tried} was refused (${response.status}) by ${gateName}${fix}`];
    return ["FAIL", `gate: ${tried} passed ${gateName}; the module answered ${response.status} ${body.code}`];
  }
  return ["ok", `gate: GET /api/leads/sources with the key, /docs and /openapi.json answered through ${baseUrl}`];
}
