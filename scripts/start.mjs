// `npm start`: builds the app, then serves it with `next start`. Without
// DATABASE_URL it runs an embedded PostgreSQL whose data lives in .data/postgres;
// without LEADS_API_KEY it generates one into .env.local (never printed: keys
// stay out of logs) and shows how to use it.
// `npm run serve` does the same without the build step.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startEmbeddedPostgres } from "./embedded-postgres.mjs";

const ENV_FILE = ".env.local";
const port = process.env.PORT ?? "3000";

if (existsSync(ENV_FILE)) process.loadEnvFile(ENV_FILE);

if (!process.env.LEADS_API_KEY) {
  const key = `lk_${randomBytes(32).toString("base64url")}`;
  appendFileSync(ENV_FILE, `LEADS_API_KEY=${key}\n`, { mode: 0o600 });
  process.env.LEADS_API_KEY = key;
  console.log(`Generated an API key into ${ENV_FILE} (LEADS_API_KEY). Try it:`);
  console.log(`  curl -H "Authorization: Bearer $(sed -n 's/^LEADS_API_KEY=//p' ${ENV_FILE})" http://localhost:${port}/api/leads/sources\n`);
}

let database;
if (!process.env.DATABASE_URL) {
  database = await startEmbeddedPostgres({
    dir: path.resolve(".data", "postgres"),
    port: Number(process.env.EMBEDDED_PG_PORT ?? 54329),
    database: "leads",
  });
  process.env.DATABASE_URL = database.url;
  console.log(`Embedded PostgreSQL running, data in .data/postgres`);
}

if (!process.argv.includes("--no-build")) {
  const build = spawnSync("npm", ["run", "build"], { stdio: "inherit" }); // the OpenAPI document, then next build
  if (build.status !== 0) await shutdown(build.status ?? 1);
}

// Migrations and the configured default sources are in place before the server
// starts, so no request (a listing included) is the one that writes them.
const prepared = spawnSync("npx", ["tsx", "scripts/prepare-db.ts"], { stdio: "inherit" });
if (prepared.status !== 0) await shutdown(prepared.status ?? 1);

// Next itself, not through npx: a signal to the launcher must reach the server.
const nextBin = fileURLToPath(import.meta.resolve("next/dist/bin/next"));
// A 1 GB heap limit (unless NODE_OPTIONS sets one). Under Node's default here (4 GB)
// V8 let the heap grow to 240 MB while live data stayed under 80 MB, and the process
// passed 360 MB; with a lower limit V8 collects sooner and stays near 230 MB (512 MB
// and 768 MB did the same; measured CPU cost within noise). README, Benchmark.
const heapLimit = process.env.NODE_OPTIONS?.includes("--max-old-space-size") ? [] : ["--max-old-space-size=1024"];
// Methods Next refuses before any route runs get the API's JSON answers (scripts/method-guard.mjs).
const methodGuard = ["--import", fileURLToPath(import.meta.resolve("./method-guard.mjs"))];
const server = spawn(process.execPath, [...heapLimit, ...methodGuard, nextBin, "start", "-p", port], { stdio: "inherit" });
server.on("exit", (code) => shutdown(code ?? 0));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));

async function shutdown(code) {
  await database?.stop();
  process.exit(code);
}
