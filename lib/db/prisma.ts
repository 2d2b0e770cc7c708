import "server-only";
import { createDatabaseClient, type Db } from "@/lib/db/connect";
import { numericSetting } from "@/lib/settings.mjs";

export type { Db } from "@/lib/db/connect";

// One client (and pg pool) per server process, kept across hot reloads.
const globalForDb = globalThis as typeof globalThis & { leadIntakeDb?: Db };

/**
 * The server process's Prisma client; start-up work (migrations, configured sources) is lib/startup/service.ts.
 */
export function database(): Db {
  if (globalForDb.leadIntakeDb) return globalForDb.leadIntakeDb;
  const connectionString = process.env.DATABASE_URL;
  if (!connectionString) throw new Error("DATABASE_URL is not set");
  return (globalForDb.leadIntakeDb = createDatabaseClient(connectionString, numericSetting("DATABASE_POOL_SIZE")));
}
