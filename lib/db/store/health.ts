import type { Db } from "@/lib/db/prisma";

/** A trivial query: the database answers. */
export async function ping(db: Db): Promise<void> {
  await db.$queryRaw`SELECT 1`;
}
