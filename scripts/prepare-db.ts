// Run by lib/runtime/start.mjs before `next start`: applies pending migrations and
// creates the configured default sources in the database at DATABASE_URL, so a
// failure stops the launcher with a clear message before the server starts. Each
// server process also does this once in instrumentation.ts (a no-op by then), so a
// host that starts Next itself needs no separate step.
import { createDatabaseClient } from "@/lib/db/connect";
import { prepareDatabase } from "@/lib/startup/prepare";

const connectionString = process.env.DATABASE_URL as string;
const db = createDatabaseClient(connectionString);
try {
  await prepareDatabase(db, connectionString);
} catch (error) {
  // The message only: a stack or query could carry the connection string.
  console.error(`Preparing the database failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await db.$disconnect();
}
