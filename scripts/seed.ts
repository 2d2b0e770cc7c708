// `npm run db:seed -- <fixture.json>`: loads a JSON fixture into DATABASE_URL or, when unset, `npm start`'s embedded
// database. Idempotent: rows are matched by their natural keys.
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import {
  embeddedDataDir,
  embeddedUrl,
  runningPostmaster,
  startEmbeddedPostgres,
  StartupError,
} from "@/lib/runtime/embedded-postgres.mjs";
import { numericSetting } from "@/lib/settings.mjs";
import { commandLine } from "./host/check/command-line";
import { readFixture } from "./seed/fixture";
import { seed } from "./seed/load";

const DATABASE = "leads";

/** DATABASE_URL, or the embedded database of `npm start`: the running one, else started here (and stopped after). */
async function targetDatabase(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  const dir = embeddedDataDir();
  const running = runningPostmaster(dir);
  if (running) return { url: embeddedUrl(dir, running.port, DATABASE), stop: async () => {} };
  const server = await startEmbeddedPostgres({ dir, port: numericSetting("EMBEDDED_PG_PORT"), database: DATABASE });
  return { url: server.url, stop: () => server.stop() };
}

const USAGE = "give the fixture file, for example: npm run db:seed -- prisma/seed/demo.json";
const HELP = `Usage: npm run db:seed -- <fixture.json>\n\nLoads the fixture into DATABASE_URL or, when unset, npm start's embedded database; ${USAGE}.`;
/** Error codes of a database that cannot be reached or logged into (node-postgres, PostgreSQL). */
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "EAI_AGAIN", "28P01", "28000", "3D000"]);

/**
 * One sentence for a failure: what happened and what to do. The message only: a stack or query could carry the
 * connection string.
 */
function explain(error: unknown, file: string): string {
  if (error instanceof StartupError) return error.message;
  if (error instanceof z.ZodError) {
    const [first] = error.issues;
    return `${file} is not a valid fixture (${first.path.join(".") || "the file"}: ${first.message}); fix it and run again`;
  }
  if (error instanceof SyntaxError) return `${file} is not valid JSON (${error.message}); fix it and run again`;
  const code = String((error as { code?: unknown })?.code ?? "");
  if (code === "ENOENT" || code === "EACCES" || code === "EISDIR") return `cannot read ${file} (${code}); ${USAGE}`;
  if (UNREACHABLE.has(code)) {
    return `the database could not be reached (${code}); check DATABASE_URL, or unset it to use the embedded database of npm start`;
  }
  return error instanceof Error ? error.message : String(error);
}

async function main(file: string): Promise<void> {
  const fixture = await readFixture(file);
  // The same settings `npm start` reads, so both use the same database.
  if (existsSync(".env.local")) process.loadEnvFile(".env.local");
  const target = await targetDatabase();
  try {
    const summary = await seed(target.url, fixture);
    console.log(
      `Seeded ${summary.users} users, ${summary.persons} persons, ${summary.sources} sources and ` +
        `${summary.referrals} referral records from ${file}.`,
    );
  } finally {
    await target.stop();
  }
}

// Run as a command, not when imported. Real paths: the script may be reached through a symbolic link.
const invoked = process.argv[1] ? realpathSync(path.resolve(process.argv[1])) : "";
if (invoked === realpathSync(fileURLToPath(import.meta.url))) {
  const file = commandLine(HELP, { max: 1 }).positionals[0];
  if (!file) {
    console.error(`Seeding needs a fixture: ${USAGE}`);
    process.exit(2);
  }
  main(file).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`Seeding failed: ${explain(error, file)}`);
      process.exit(1);
    },
  );
}
