import type { Db } from "@/lib/db/prisma";
import { Prisma } from "@/lib/generated/prisma/client";

const PING = Prisma.sql`SELECT 1`;

/** A trivial query: the database answers. */
export async function ping(db: Db): Promise<void> {
  await db.$queryRaw(PING);
}
