// Run by scripts/start.mjs before `next start`: applies pending migrations and
// creates the configured default sources in the database at DATABASE_URL. Each
// server process also does this before its first request (lib/db/client.ts), so a
// host that starts Next itself needs no separate step.
import { PrismaPg } from "@prisma/adapter-pg";
import { prepareDatabase } from "@/lib/db/prepare";
import { PrismaClient } from "@/lib/generated/prisma/client";

const connectionString = process.env.DATABASE_URL as string;
const db = new PrismaClient({ adapter: new PrismaPg({ connectionString }) });
try {
  await prepareDatabase(db, connectionString);
} catch (error) {
  // The message only: a stack or query could carry the connection string.
  console.error(`Preparing the database failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await db.$disconnect();
}
