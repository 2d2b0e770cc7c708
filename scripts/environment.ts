import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MIN_KEY_LENGTH } from "../lib/api/api-key.mjs";
import { NUMERIC_SETTINGS, RATE_LIMIT_VARIABLES, type NumericSetting } from "../lib/settings.mjs";
import { commandLine } from "./host/check/command-line";

/**
 * Every environment variable the code reads, in one place: README's "Configuration" and the host guide's
 * "Environment variables" show this table between markers, and tests/launcher/environment.unit.test.ts fails when the
 * code reads a variable it lacks. `npx tsx scripts/environment.ts` rewrites both tables.
 */

/**
 * Where a variable applies: `npm start` / `npm run dev` / `npm run serve` and the server they start (launcher), a
 * host's own `next start` (host), `npm run import` (importer), `npm run db:seed` (seed), `host:check`, `npm run bench`.
 */
type Place = "launcher" | "host" | "importer" | "seed" | "host:check" | "bench";

interface Variable {
  name: string;
  default: string;
  range: string;
  where: Place[];
  meaning: string;
  /** Read by a library or a platform rather than by the module's own code. */
  readBy?: string;
}

const SERVER: Place[] = ["launcher", "host"];

const numeric = (name: NumericSetting, where: Place[], meaning: string, shownDefault?: string): Variable => {
  const { fallback, min, max } = NUMERIC_SETTINGS[name];
  return { name, default: shownDefault ?? `\`${fallback}\``, range: `${min} to ${max}`, where, meaning };
};

const rateLimit = (name: string, meaning: string): Variable => ({
  name,
  default: "unset (no limit)",
  range: "`<1 to 999999999>/<s|min|hour>`",
  where: SERVER,
  meaning,
});

export const VARIABLES: Variable[] = [
  {
    name: "LEADS_API_KEY",
    default: "generated into `.env.local` by `npm start`",
    range: `${MIN_KEY_LENGTH}+ characters`,
    where: [...SERVER, "importer", "host:check", "bench"],
    meaning:
      "The shared bearer key (a shorter one stops the launcher's start). Without one, or with a shorter one in a " +
      "host's own `next start`, data operations answer 503 `API_NOT_CONFIGURED` (said once at start) while the " +
      "host's pages keep serving.",
  },
  {
    name: "LEADS_API_KEY_PREVIOUS",
    default: "unset",
    range: `${MIN_KEY_LENGTH}+ characters`,
    where: SERVER,
    meaning:
      "During a key rotation, the key being retired: accepted as well as `LEADS_API_KEY` " +
      "([key rotation](docs/operating.md#key-rotation)). Never enough on its own: without `LEADS_API_KEY` data " +
      "operations still answer 503 `API_NOT_CONFIGURED`. A shorter one is refused like a short `LEADS_API_KEY`.",
  },
  {
    name: "DATABASE_URL",
    default: "embedded PostgreSQL on `127.0.0.1:54329`, database `leads`",
    range: "a PostgreSQL URL",
    where: [...SERVER, "seed", "host:check", "bench"],
    meaning: "The host's PostgreSQL. When set, no embedded server is started.",
  },
  numeric("DATABASE_POOL_SIZE", SERVER, "Connections per server process."),
  {
    name: "DATABASE_STATEMENTS",
    default: "`named`",
    range: "`named` or `unnamed`",
    where: SERVER,
    meaning:
      "`unnamed` behind a transaction pooler that does not track prepared statements, such as PgBouncer before " +
      "1.21 ([connection poolers](docs/host-guide.md#connection-poolers)).",
  },
  numeric(
    "DATABASE_READ_CONNECTIONS",
    SERVER,
    "How many of the pool's connections the GET operations may hold; lead creation keeps the rest " +
      "([operating](docs/operating.md#pool-settings)).",
    "half the pool",
  ),
  numeric(
    "LEADS_MIGRATION_LOCK_TIMEOUT",
    SERVER,
    "Seconds that start-up waits for the migrations' advisory lock, and for the locks a pending migration needs on " +
      "host tables, before it fails in one sentence saying how to find the session holding it " +
      "([start-up](docs/operating.md#start-up)).",
  ),
  numeric("EMBEDDED_PG_PORT", ["launcher", "seed"], "Port of the embedded PostgreSQL."),
  numeric(
    "PORT",
    ["launcher", "importer"],
    "HTTP port of `npm start` / `npm run dev` / `npm run serve`; the importer's default base URL uses it too.",
  ),
  {
    name: "LEADS_DEFAULT_SOURCES",
    default: "contents of `lib/leads/sources/default-sources.json`",
    range: 'a JSON array of `{"name", "type"}`',
    where: SERVER,
    meaning: "The configured default sources (`type` is `ads` or `other`).",
  },
  {
    name: "LEADS_ACCESS_LOG",
    default: "on",
    range: "`off` or anything else",
    where: SERVER,
    meaning: "`off` turns the per-request access log off (for hosts that log at their proxy). Read at start.",
  },
  {
    name: "OTEL_EXPORTER_OTLP_ENDPOINT",
    default: "unset",
    range: "a base URL",
    where: SERVER,
    meaning:
      "When set, traces and metrics are exported over OTLP/HTTP to this base URL (`/v1/traces` and `/v1/metrics` " +
      "are appended); unset, no tracing code is loaded. See [tracing](docs/operating.md#tracing).",
  },
  {
    name: "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    default: "unset",
    range: "a URL",
    where: SERVER,
    meaning: "Where metrics go over OTLP, when not under `OTEL_EXPORTER_OTLP_ENDPOINT`.",
  },
  {
    name: "OTEL_EXPORTER_OTLP_PROTOCOL",
    default: "`http/protobuf`",
    range: "`http/protobuf` or `http/json`",
    where: SERVER,
    meaning: "The OTLP encoding.",
  },
  {
    name: "OTEL_EXPORTER_OTLP_HEADERS",
    default: "unset",
    range: "as the OpenTelemetry specification says",
    where: SERVER,
    meaning: "Headers of every OTLP export.",
    readBy: "the OpenTelemetry exporters",
  },
  {
    name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    default: "unset",
    range: "a URL",
    where: SERVER,
    meaning: "Where traces go, when not under `OTEL_EXPORTER_OTLP_ENDPOINT`.",
    readBy: "the OpenTelemetry exporters",
  },
  {
    name: "OTEL_SERVICE_NAME",
    default: "`lead-intake-service`",
    range: "any name",
    where: SERVER,
    meaning: "The `service.name` of traces and metrics.",
  },
  {
    name: "LEADS_METRICS_PORT",
    default: "unset",
    range: "1 to 65535, not `PORT`",
    where: SERVER,
    meaning:
      "When set, a Prometheus scrape endpoint at `/metrics` on this port (its own server, never the app's port); " +
      "with `OTEL_EXPORTER_OTLP_ENDPOINT` set, metrics go over OTLP too. Unset both, no metrics code is loaded. See " +
      "[metrics](docs/operating.md#metrics).",
  },
  numeric("OTEL_METRIC_EXPORT_INTERVAL", SERVER, "Milliseconds between two OTLP metric exports."),
  rateLimit(
    RATE_LIMIT_VARIABLES.create,
    "Lead creations per key, e.g. `600/min`, shared by every process through PostgreSQL; over it 429 " +
      "`RATE_LIMITED` with `Retry-After`. See [rate limits](docs/operating.md#rate-limits).",
  ),
  rateLimit(RATE_LIMIT_VARIABLES.read, "The same for the three GET operations together."),
  {
    name: "NODE_OPTIONS",
    default: "unset",
    range: "Node's options",
    where: ["launcher", "host:check"],
    meaning:
      "The launcher adds its heap flags unless this sets them; `host:check` looks here for the preload " +
      "([host guide](docs/host-guide.md#deployment-shapes)).",
  },
  {
    name: "NEXT_RUNTIME",
    default: "set by Next.js",
    range: "`nodejs` or `edge`",
    where: SERVER,
    meaning: "Not yours to set: `instrumentation.ts` loads its Node.js work only under `nodejs`.",
  },
  {
    name: "LEADS_HOST_URL",
    default: "unset",
    range: "a base URL",
    where: ["host:check"],
    meaning:
      "The host's own server, for `host:check` to try the module's paths through the host's gate (as `--url` does; " +
      "without either, its gate line fails; [checking a host](docs/host-guide.md#checking-a-host)).",
  },
  {
    name: "INIT_CWD",
    default: "set by npm",
    range: "a folder",
    where: [],
    meaning: "Not yours to set: `npm run host:install` resolves the host folder from where npm was run.",
  },
  ...(
    [
      ["BENCH_GET_SECONDS", "5", "Seconds of each GET measurement."],
      ["BENCH_POST_SECONDS", "6", "Seconds of each POST measurement."],
      ["BENCH_POST_ROUNDS", "3 (5 for the options)", "Rounds of each POST measurement."],
      ["BENCH_WARM_SECONDS", "20", "Seconds of warm-up before the POST measurements."],
      ["BENCH_PROFILE_SECONDS", "15", "Seconds of the CPU profile."],
      ["BENCH_SCALE_REQUESTS", "200", "Requests of the sources-scale measurement."],
      ["BENCH_CREATION_STATEMENT", "set by the benchmark", "Not yours to set: the floor app's creation statement."],
    ] as const
  ).map(([name, fallback, meaning]): Variable => ({
    name,
    default: fallback,
    range: name === "BENCH_CREATION_STATEMENT" ? "JSON" : "a whole number",
    where: ["bench"],
    meaning: `${meaning} ([bench](bench/README.md))`,
  })),
];

const PLACES: Record<Place, string> = {
  launcher: "launcher",
  host: "host's `next start`",
  importer: "importer",
  seed: "seed",
  "host:check": "`host:check`",
  bench: "bench",
};

/**
 * The table, its links relative to `folder` (README at the root, the guide in docs/); a `|` inside a cell is escaped.
 */
export function environmentTable(folder: "." | "docs"): string {
  const link = (text: string) =>
    folder === "."
      ? text
      : text.replace(/\]\((?!https?:)([^)#]+)/g, (_, target: string) => `](${path.posix.relative("docs", target)}`);
  const cell = (text: string) => link(text).replace(/\|/g, "\\|");
  const rows = VARIABLES.map(
    (v) =>
      `| \`${v.name}\` | ${cell(v.default)} | ${cell(v.range)} | ${v.where.map((p) => PLACES[p]).join(", ") || "-"} | ` +
      `${cell(v.meaning)} |`,
  );
  return ["| Variable | Default | Range | Where | Meaning |", "|---|---|---|---|---|", ...rows].join("\n");
}

const ROOT = path.resolve(import.meta.dirname, "..");
export const BEGIN = "<!-- environment table: scripts/environment.ts -->";
export const END = "<!-- end of environment table -->";
export const PAGES = { "README.md": ".", "docs/host-guide.md": "docs" } as const;

/** The page with its table replaced by the current one. */
export function withTable(text: string, folder: "." | "docs"): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`no ${BEGIN} ... ${END} markers`);
  return `${text.slice(0, start + BEGIN.length)}\n${environmentTable(folder)}\n${text.slice(end)}`;
}

if (process.argv[1] === import.meta.filename) {
  commandLine(
    "Usage: npx tsx scripts/environment.ts\n\nWrites the table of environment variables into README.md and docs/host-guide.md.",
  );
  for (const [page, folder] of Object.entries(PAGES)) {
    const file = path.join(ROOT, page);
    writeFileSync(file, withTable(readFileSync(file, "utf8"), folder));
    console.log(`Wrote the environment table into ${page}`);
  }
}
