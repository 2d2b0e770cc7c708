import { readdirSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The module's files for a host, in one place: `npm run host:install` copies exactly these (scripts/host/install.ts),
 * and the table of docs/host-guide.md, "Installing: one command", is rendered from them (checked by
 * tests/host/host-manifest.unit.test.ts). A folder stands for every file under it.
 */
export const MODULE_FILES: { paths: string[]; what: string; generated?: true }[] = [
  {
    paths: ["app/api/"],
    what: "The four operations and their aliases, the health checks, and a JSON 404 for any other `/api` path.",
  },
  {
    paths: ["instrumentation.ts", "lib/instrumentation/", "lib/startup/", "lib/settings.mjs", "lib/log-line.mjs"],
    what:
      "The start-up work (settings checked, migrations, configured sources) before the first request; " +
      "tracing and metrics when configured; the shape of the log lines.",
  },
  {
    paths: ["lib/preload/"],
    what:
      "The preload of `next start`: request and write timeouts, JSON 405 for methods Next refuses itself, " +
      "JSON 400 for requests Node's parser refuses, 429 for lead creation while its line is full.",
  },
  {
    paths: ["app/docs/route.ts", "app/openapi.json/route.ts", "app/swagger-ui/", "lib/openapi/"],
    what:
      "`/docs`, `/openapi.json` (built from the zod schemas on its first request) and Swagger UI's two files " +
      "(from the installed `swagger-ui-dist`), each with its security headers, from the module's own route handlers.",
  },
  {
    paths: ["lib/api/"],
    what: "The request wrapper: request id, key check, body, validation, the error table, access log.",
  },
  { paths: ["lib/leads/"], what: "The domain, including `default-sources.json`." },
  {
    paths: ["lib/db/"],
    what: "The database client, named statements, failure kinds, the migration runner, layout SQL, all SQL.",
  },
  {
    paths: ["prisma/migrations/"],
    what: "The module's migrations (one folder each), `migration_lock.toml` and `checksums.json`.",
  },
  {
    paths: ["scripts/host/check/"],
    what:
      "`npm run host:check`, how it reads the tables and columns of the host's Prisma schema, and how it tries the " +
      "module's paths through the host's own gate, and the grants it checks.",
  },
  {
    paths: ["scripts/host/check/needs.json"],
    what:
      "Written by the install: the module's own tables and columns, the fields of the host's models it uses with " +
      "their types, and the migrations `host:check` looks for, the host's schema and the files the install wrote.",
    generated: true,
  },
  {
    paths: ["lib/generated/prisma/client.ts"],
    what: "Written by the install: re-exports the host's generated Prisma client, which the module uses.",
    generated: true,
  },
];

/**
 * Where earlier versions' installs wrote what is now elsewhere: a record naming these is still the module's, and a
 * re-install removes each file the host left as written and writes the scripts anew.
 */
export const RETIRED = {
  files: [
    "lib/runtime/next-server-preload.mjs",
    "lib/runtime/method-guard.mjs",
    "lib/runtime/server-timeouts.mjs",
    "lib/runtime/client-errors.mjs",
    "lib/runtime/creation-shed.mjs",
    "lib/runtime/node-instrumentation.ts",
    "lib/tracing.ts",
    "lib/metrics.ts",
    "scripts/host/check.ts",
    "scripts/host/command-line.ts",
    "scripts/host/prisma-names.ts",
    "scripts/host/gate.ts",
    "scripts/host/grants.ts",
    "scripts/host/needs.json",
  ],
  preloadFile: "lib/runtime/next-server-preload.mjs",
  checkScript: "tsx scripts/host/check.ts",
};

/** The host's record of what the install wrote: each file's SHA-256, so a later install knows what the host edited. */
export const STATE_FILE = ".lead-intake-module.json";
/** The preload of `next start` (docs/host-guide.md, "The preload"), under the host's source root. */
export const PRELOAD_FILE = "lib/preload/next-server-preload.mjs";
/** What `next start` needs in its environment for the preload, in a host whose sources are under `sourceRoot`. */
export const preloadFor = (sourceRoot = "") => `NODE_OPTIONS=--import=./${sourceRoot}${PRELOAD_FILE}`;
export const PRELOAD = preloadFor();

/** Files of a listed path that are not the module's: the project's own build output and editor files. */
const SKIPPED = /(^|\/)(\.DS_Store|node_modules)(\/|$)/;

/** Every file the manifest names but the generated ones, relative to `root`, in a stable order. */
export function moduleFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (relative: string) => {
    if (SKIPPED.test(relative)) return;
    const full = path.join(root, relative);
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) walk(path.posix.join(relative, name));
    } else files.push(relative);
  };
  for (const { paths, generated } of MODULE_FILES)
    if (!generated) for (const entry of paths) walk(entry.replace(/\/$/, ""));
  return files;
}

/** The guide's table of what the install copies. */
export function manifestTable(): string {
  const rows = MODULE_FILES.map(({ paths, what }) => `| ${paths.map((p) => `\`${p}\``).join(", ")} | ${what} |`);
  return ["| Path | What it is |", "|---|---|", ...rows].join("\n");
}
