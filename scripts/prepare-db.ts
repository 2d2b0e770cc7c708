// Run by lib/runtime/start.mjs before `next start`: migrations and configured sources, so a failure stops the
// launcher with one sentence. Each server process does the same from instrumentation.ts for a host's own Next.
import { createDatabaseClient } from "@/lib/db/connect";
import { HostObjectInTheWay, MigrationLockTimeout } from "@/lib/db/migrate";
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
      : error instanceof HostObjectInTheWay
        ? `${message}.`
        : `Preparing the database failed (${message}); fix that and start again`,
  );
  process.exitCode = 1;
} finally {
  await db.$disconnect();
}
