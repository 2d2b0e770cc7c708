import { migrate } from "@/lib/db/migrate";
import type { Db } from "@/lib/db/connect";
import { ensureConfiguredSources } from "@/lib/startup/configured-sources";

/** What a database needs before the service uses it: pending migrations, then the configured default sources. */
export async function prepareDatabase(db: Db, connectionString: string): Promise<void> {
  await migrate(connectionString);
  await ensureConfiguredSources(db);
}
