import { Prisma } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import { queryPreparedWithin } from "@/lib/db/prepared";
import { builtOnce, Slot } from "@/lib/db/statement-template";

/** A share of a key's budget claimed for one process: how many requests it may admit, and until when. */
export interface Claimed {
  /** Requests granted, from 0 (the window's budget is spent) to the share asked for. */
  granted: number;
  /** Seconds until the window ends and the budget is whole again. */
  secondsLeft: number;
}

interface Claim {
  keyDigest: Buffer;
  operation: string;
  limit: number;
  periodSeconds: number;
  share: number;
}

const claim = (name: keyof Claim) => new Slot<Claim>((args) => args[name]);
const [keyDigest, operation, limit, periodSeconds, share] = (
  ["keyDigest", "operation", "limit", "periodSeconds", "share"] as const
).map(claim);

/**
 * Claims up to `share` requests of a key's budget in one upsert, under the row's lock so concurrent processes never
 * claim past `limit`. `hits` stops at limit + share, so a client that keeps trying grows nothing (docs/decisions.md,
 * "Rate limits: 429 and a window per key").
 */
const claimSql = builtOnce<Claim>(Prisma.sql`
  INSERT INTO lead_rate_limit_counts AS c (key_digest, operation, window_start, hits)
  VALUES (${keyDigest}, ${operation}, statement_timestamp(), ${share}::int)
  ON CONFLICT (key_digest, operation) DO UPDATE SET
    window_start = CASE WHEN c.window_start > statement_timestamp() - ${periodSeconds}::int * interval '1 second'
      THEN c.window_start ELSE statement_timestamp() END,
    hits = CASE WHEN c.window_start > statement_timestamp() - ${periodSeconds}::int * interval '1 second'
      THEN least(c.hits + ${share}::int, ${limit}::int + ${share}::int) ELSE ${share}::int END
  RETURNING greatest(0, least(${share}::int, ${limit}::int + ${share}::int - hits)) AS granted,
    extract(epoch FROM window_start + ${periodSeconds}::int * interval '1 second' - statement_timestamp())::float8
      AS "secondsLeft"`);

export async function claimRequests(db: Db, request: Claim, timeoutMs: number): Promise<Claimed> {
  const [row] = await queryPreparedWithin<Claimed>(db, claimSql(request), timeoutMs);
  const { granted, secondsLeft } = row!;
  return { granted, secondsLeft: Math.max(0, secondsLeft) };
}
