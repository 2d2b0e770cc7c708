// Run by lib/runtime/start.mjs beside `next start`: applies pending migrations and
// creates the configured default sources in the database at DATABASE_URL, so a
// failure stops the launcher with one sentence. Each server process also does this
// once from instrumentation.ts (a no-op by then, or waiting on the same lock), so a
// host that starts Next itself needs no separate step.
import { createDatabaseClient } from "@/lib/db/connect";
import { MigrationLockTimeout } from "@/lib/db/migrate";
import { prepareDatabase } from "@/lib/startup/prepare";

const connectionString = process.env.DATABASE_URL as string;
const db = createDatabaseClient(connectionString);
try {
  await prepareDatabase(db, connectionString);
} catch (error) {
  // The message only: a stack or query could carry the connection string.
  const message = error instanceof Error ? error.message : String(error);
  console.error(
    error instanceof MigrationLockTimeout
      ? `${message}, then start again`
      : `Preparing the database failed (${message}); fix that and start again`,
  );
  process.exitCode = 1;
} finally {
  await db.$disconnect();
}
