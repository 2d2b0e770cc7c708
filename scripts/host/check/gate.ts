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

/**
 * MODULE_PATHS as a lookahead of a Next `matcher` entry (path-to-regexp's syntax, as Next compiles `config.matcher`):
 * a lookahead of these leaves them and the paths under them out.
 */
const MATCHER_LOOKAHEAD = `(?:${MODULE_PATHS.map((p) => p.slice(1).replace(/\./g, String.raw`\.`)).join("|")})(?:/|$)`;

/**
 * How the host's gate is written: its own function (better-auth's too), Auth.js's `auth((req) => ...)`, Auth.js's
 * `auth` exported as the gate itself, Clerk's `clerkMiddleware`, or none of these (docs/host-guide.md, "Host shapes").
 */
export type GateForm = "function" | "auth-callback" | "auth-export" | "clerk" | "unknown";

/** Where an edit's code goes: on a new line after the line `after`, in place of `replace`, or at the file's end. */
export type GatePlace = { after: string } | { replace: string } | { atEnd: true } | { nowhere: true };

/** The edit that lets the module's paths through the host's gate: one sentence, the exact code and where it goes. */
export interface GateEdit {
  form: GateForm;
  sentence: string;
  code: string;
  place: GatePlace;
}

const ID = String.raw`[A-Za-z_$][\w$]*`;
const STRING = String.raw`"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'`;

/** The statement put first in a gate's function, its request `request`: NextResponse.next() where it is imported. */
function passStatement(text: string, request: string): string {
  const imported = /import\s*\{[^}]*\bNextResponse\b[^}]*\}\s*from\s*["']next\/server["']/.test(text);
  return `if (${MODULE_PATHS_PATTERN}.test(${request}.nextUrl.pathname)) return${imported ? " NextResponse.next()" : ""};`;
}

/** The first whole line of `text` that `pattern` matches, trimmed (group 1), with the pattern's groups after it. */
const lineMatching = (text: string, pattern: string) =>
  new RegExp(String.raw`^[^\S\n]*(${pattern})[^\S\n]*$`, "m").exec(text) ?? undefined;

/**
 * The host's gate read from its text (undefined: it could not be read): its form, and the edit that lets the module's
 * paths through before anything in it looks for a session; null where its `config.matcher` leaves them out already.
 */
export function gateEdit(text: string | undefined): GateEdit | null {
  const paths = MODULE_PATHS.join(", ");
  const unknown: GateEdit = {
    form: "unknown",
    sentence:
      `let ${paths} through before its session check, first in the function that gets the request (its ` +
      "parameter for `request`)",
    code: `if (${MODULE_PATHS_PATTERN}.test(request.nextUrl.pathname)) return NextResponse.next();`,
    place: { nowhere: true },
  };
  if (text === undefined) return unknown;
  const edit = readGate(text, paths);
  if (edit === null) return null;
  if (edit === undefined) return unknown;
  const place = Object.values(edit.place).find((v): v is string => typeof v === "string") ?? "";
  // A line with a backtick could not be shown between backticks, nor text that is not once in the file replaced.
  if (place.includes("`") || ("replace" in edit.place && text.split(place).length !== 2)) return unknown;
  return edit;
}

function readGate(text: string, paths: string): GateEdit | null | undefined {
  const first = (form: GateForm, what: string, line: string | undefined, request: string | undefined): GateEdit => ({
    form,
    sentence: `it is ${what}: let ${paths} through first in it, before its session check`,
    code: passStatement(text, request ?? "request"),
    place: { after: line ?? "" },
  });
  const callback = lineMatching(
    text,
    String.raw`.*\bauth\(\s*(?:async\s+)?(?:\(\s*(${ID})[^)]*\)\s*=>|(${ID})\s*=>|function\s*(?:${ID})?\s*\(\s*(${ID})[^)]*\)[^{]*)\s*\{`,
  );
  if (callback)
    return first(
      "auth-callback",
      "Auth.js's auth() around the host's function",
      callback[1],
      callback[2] ?? callback[3] ?? callback[4],
    );
  if (
    /export\s*\{[^}]*\bauth\s+as\s+(?:proxy|middleware|default)\b[^}]*\}/.test(text) ||
    /^export\s+(?:default\s+auth|const\s+(?:proxy|middleware)\s*=\s*auth)\s*;?\s*$/m.test(text)
  )
    return matcherEdit(text, paths);
  if (/\bclerkMiddleware\s*\(/.test(text)) {
    const routes = new RegExp(String.raw`\b(${ID})\s*=\s*createRouteMatcher\(\s*\[`).exec(text);
    if (routes && /public/i.test(routes[1] ?? ""))
      return {
        form: "clerk",
        sentence: `it is Clerk's clerkMiddleware(): make ${paths} public routes, first in ${routes[1]}`,
        code: `${routes[0]}${MODULE_PATHS_PATTERN}, `,
        place: { replace: routes[0] },
      };
    const handler = lineMatching(
      text,
      String.raw`.*\bclerkMiddleware\(\s*(?:async\s+)?\(\s*${ID}\s*,\s*(${ID})[^)]*\)\s*=>\s*\{`,
    );
    return handler && first("clerk", "Clerk's clerkMiddleware() around the host's function", handler[1], handler[2]);
  }
  const declared =
    lineMatching(
      text,
      String.raw`export\s+(?:default\s+)?(?:async\s+)?function\s*(${ID})?\s*\(\s*(${ID})[^)]*\)[^{]*\{`,
    ) ?? lineMatching(text, String.raw`export\s+const\s+(${ID})\s*=\s*(?:async\s+)?\(\s*(${ID})[^)]*\)[^=]*=>\s*\{`);
  if (declared) return first("function", `the host's function ${declared[2] ?? "exported"}`, declared[1], declared[3]);
  return undefined;
}

/**
 * Auth.js's `auth` as the gate: the module's paths left out of `config.matcher`, by a lookahead put first in its one
 * entry that is one (`/((?!login|_next/static).*)`), or by a matcher of that lookahead alone where it has none.
 * Undefined where another entry may match them (`/api/:path*`); null where none does.
 */
function matcherEdit(text: string, paths: string): GateEdit | null | undefined {
  const sentence = (how: string) =>
    `it exports Auth.js's auth as it is, with no function of the host's: leave ${paths} out of its config.matcher${how}`;
  const entry = `"/((?!${MATCHER_LOOKAHEAD}).*)"`.replace(/\\/g, "\\\\");
  const matcher = new RegExp(String.raw`\bmatcher\s*:\s*(\[\s*(?:(?:${STRING})\s*,?\s*)*\]|${STRING})`).exec(text);
  if (!matcher) {
    if (/\bmatcher\b/.test(text)) return undefined;
    const config = lineMatching(text, String.raw`export\s+const\s+config\s*(?::[^=]*)?=\s*\{`);
    return {
      form: "auth-export",
      sentence: sentence(", a matcher of them alone"),
      code: config ? `matcher: [${entry}],` : `export const config = { matcher: [${entry}] };`,
      place: config ? { after: config[1] ?? "" } : { atEnd: true },
    };
  }
  const entries = [...(matcher[1] ?? "").matchAll(new RegExp(STRING, "g"))].map((m) => m[0]);
  const lookaheads = entries.filter((e) => e.slice(1).startsWith("/((?!"));
  const reaching = entries.filter((e) => {
    const fixed = e.slice(1, -1).split(/[:(*{?+[\\]/)[0] ?? "";
    return !lookaheads.includes(e) && MODULE_PATHS.some((p) => p.startsWith(fixed) || fixed.startsWith(p));
  });
  if (reaching.length || lookaheads.length > 1) return undefined;
  const [lookahead] = lookaheads;
  if (!lookahead) return null;
  return {
    form: "auth-export",
    sentence: sentence(", first in its lookahead"),
    code: lookahead.replace("/((?!", `/((?!${entry.slice(6, -5)}|`),
    place: { replace: lookahead },
  };
}

/** The install's step, and host:check's fix, for the host's gate `file` and its edit. */
export function gateStep(file: string, edit: GateEdit): string {
  const { place, code } = edit;
  const how =
    "after" in place
      ? `put \`${code}\` on a new line after \`${place.after}\``
      : "replace" in place
        ? `replace \`${place.replace}\` with \`${code}\``
        : "atEnd" in place
          ? `add \`${code}\` at its end`
          : `\`${code}\``;
  return `Edit ${file}: ${edit.sentence}: ${how}`;
}

/** The paths `host:check` tries through the host's server: an operation with the key, the page and its document. */
const TRIED = ["/api/leads/sources", "/docs", "/openapi.json"];

/**
 * `host:check`'s line on the way in: the module's paths through the host's running server at `baseUrl`. A redirect,
 * or a refusal that is not the module's JSON error, is the host's gate stopping the module. Without a server to try
 * it fails: a gate found only when asked is how the module ends up behind the host's login. The fix is the install's.
 */
export async function gateCheck(
  gate: string | null,
  baseUrl: string | undefined,
  key: string | undefined,
  gateText?: string,
): Promise<["ok" | "FAIL" | "note", string]> {
  const gateName = gate ? `the host's ${gate}` : "the host's server";
  if (!baseUrl)
    return [
      "FAIL",
      `gate: the module's paths were not tried through ${gateName}${gate ? ", which runs before them" : ""}; ` +
        "start the host and give its base URL: --url http://localhost:3000 or LEADS_HOST_URL",
    ];
  const edit = gateEdit(gateText) ?? gateEdit(undefined);
  const fix = gate && edit ? `; ${gateStep(gate, edit)}` : "";
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
