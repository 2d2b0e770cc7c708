import type { PrismaClient } from "@/lib/generated/prisma/client";
import { ensureConfiguredSources } from "@/lib/leads/sources";
import { migrate } from "./migrate";

/** What a database needs before the service uses it: pending migrations, then the configured default sources. */
export async function prepareDatabase(db: PrismaClient, connectionString: string): Promise<void> {
  await migrate(connectionString);
  await ensureConfiguredSources(db);
}
