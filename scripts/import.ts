// `npm run import -- FILE [flags]`: the bulk importer (lib/importer). docs/operating.md, "Bulk importer".
import { parseArgs } from "node:util";
import { DEFAULT_CONCURRENCY, EXIT, runImport } from "../lib/importer/run";
import { ENV_FILE, loadLocalEnv, LocalEnvError, localBaseUrl } from "../lib/runtime/local-env.mjs";

const HELP = `Usage: npm run import -- FILE [flags]

Imports leads from FILE (.csv with the API's field names as header, or .jsonl with one
API body per line) into the Lead Intake Service. The key is LEADS_API_KEY, from the
environment or else from ${ENV_FILE} in the current folder, as the server reads it.
Running the same command again resumes a stopped or failed run without duplicates.

  --base-url URL          the service (default http://localhost:PORT, PORT as the server's, 3000 unset)
  --concurrency N         requests in flight, 1 to 64 (default 4)
  --dry-run               validate every row with the service's schema; send nothing
  --json                  one JSON event per line on stdout
  --ledger PATH           the ledger (default FILE.ledger.jsonl); the results files are
                          written beside it (LEDGER less .ledger.jsonl, then .created.csv
                          and .rejected.csv)
  --resend-unreconciled   send again rows whose outcome cannot be checked (person referrers)
  --help

Exit codes: 0 all created, 65 some rejected, 75 uncertain rows remain, the run was
stopped (SIGINT, SIGTERM) or another import holds the ledger (run again), 69 server
unreachable or 503, 77 key refused, 74 the ledger or a results file could not be
written, 73 something other than a regular file stands at the ledger's, its lock's
or a results file's name, 64 usage error.`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${HELP}\n`);
  process.exit(EXIT.USAGE);
}

try {
  loadLocalEnv();
} catch (error) {
  if (!(error instanceof LocalEnvError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(EXIT.USAGE);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      "base-url": { type: "string", default: localBaseUrl() },
      concurrency: { type: "string", default: String(DEFAULT_CONCURRENCY) },
      "dry-run": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      ledger: { type: "string" },
      "resend-unreconciled": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
} catch (error) {
  fail((error as Error).message);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(EXIT.OK);
}
if (positionals.length !== 1) fail("Give exactly one input FILE.");
const concurrency = Number(values.concurrency);
if (!/^[0-9]+$/.test(values.concurrency) || concurrency < 1 || concurrency > 64)
  fail("--concurrency must be an integer from 1 to 64.");
try {
  new URL(values["base-url"]);
} catch {
  fail(`--base-url is not a URL: ${values["base-url"]}`);
}
const apiKey = process.env.LEADS_API_KEY ?? "";
if (!apiKey && !values["dry-run"]) {
  fail(
    `No key: set LEADS_API_KEY to the service's key, or run from the folder whose ${ENV_FILE} holds it (npm start writes it there).`,
  );
}

const file = positionals[0];
const stopping = new AbortController();
// Every signal is taken, not only the first: Ctrl-C reaches this process from the terminal and again from npm, which
// forwards it, and a default action on the second would end the run before its ledger and results are written.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping.signal.aborted) return;
    process.stderr.write(
      `\n${signal}: finishing the requests in flight, then stopping. Run the same command to resume.\n`,
    );
    stopping.abort();
  });
}

const result = await runImport({
  file,
  baseUrl: values["base-url"],
  apiKey,
  concurrency,
  dryRun: values["dry-run"],
  json: values.json,
  ledgerPath: values.ledger ?? `${file}.ledger.jsonl`,
  resendUnreconciled: values["resend-unreconciled"],
  signal: stopping.signal,
});
process.exitCode = result.exitCode;
