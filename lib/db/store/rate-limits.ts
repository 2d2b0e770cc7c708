import { Prisma } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import { queryPrepared } from "@/lib/db/prepared";

/** A request counted against its key's limit: whether it fits, and the state of its window after it. */
export interface Counted {
  admitted: boolean;
  /** Requests admitted in the window, this one included when admitted. */
  hits: number;
  /** Seconds until the window ends and the budget is whole again. */
  secondsLeft: number;
}

/**
 * One upsert per request, under the row's lock so concurrent processes never count past `limit`: a window of
 * `periodSeconds` starts at the first request after the previous one ended (PostgreSQL's clock, the same for every
 * process). `hits` stops at limit + 1, so a refused request is told apart from the last admitted one and a client
 * that keeps trying grows nothing.
 */
export async function countRequest(
  db: Db,
  keyDigest: Buffer,
  operation: string,
  limit: number,
  periodSeconds: number,
): Promise<Counted> {
  const [row] = await queryPrepared<{ hits: number; secondsLeft: number }>(
    db,
    Prisma.sql`
      INSERT INTO lead_rate_limit_counts AS c (key_digest, operation, window_start, hits)
      VALUES (${keyDigest}, ${operation}, statement_timestamp(), 1)
      ON CONFLICT (key_digest, operation) DO UPDATE SET
        window_start = CASE WHEN c.window_start > statement_timestamp() - ${periodSeconds}::int * interval '1 second'
          THEN c.window_start ELSE statement_timestamp() END,
        hits = CASE WHEN c.window_start > statement_timestamp() - ${periodSeconds}::int * interval '1 second'
          THEN least(c.hits + 1, ${limit}::int + 1) ELSE 1 END
      RETURNING hits, extract(epoch FROM window_start + ${periodSeconds}::int * interval '1 second' - statement_timestamp())::float8 AS "secondsLeft"`,
  );
  return { admitted: row.hits <= limit, hits: Math.min(row.hits, limit), secondsLeft: Math.max(0, row.secondsLeft) };
}
