-- Requests per key and limited operation (LEADS_RATE_LIMIT_CREATE, LEADS_RATE_LIMIT_READ), counted here so every
-- server process shares one budget. A key is identified by a SHA-256 digest, never stored itself. Fixed windows
-- that start at a key's first request after the previous window ended: one upsert per request (lib/db/store/rate-limits.ts)
-- counts the request, or starts a new window, under the row's lock, so concurrent processes never count past the
-- limit. At most two rows per key and operation that ever served (current and previous key), whatever clients send.

-- CreateTable
CREATE TABLE "lead_rate_limit_counts" (
    "key_digest" BYTEA NOT NULL,
    "operation" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(6) NOT NULL,
    "hits" INTEGER NOT NULL,

    CONSTRAINT "lead_rate_limit_counts_pkey" PRIMARY KEY ("key_digest","operation")
);

REVOKE ALL ON TABLE "lead_rate_limit_counts" FROM PUBLIC;
