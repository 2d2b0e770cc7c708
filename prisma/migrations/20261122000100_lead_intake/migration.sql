-- What the lead intake module adds to a host database: one table of its own and
-- indexes. It changes no existing row of the host's tables.

-- CreateTable
CREATE TABLE "lead_source_names" (
    "key" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,

    CONSTRAINT "lead_source_names_pkey" PRIMARY KEY ("key"),
    CONSTRAINT "lead_source_names_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "lead_source_names_customer_id_key" ON "lead_source_names"("customer_id");

-- CreateIndex
CREATE INDEX IF NOT EXISTS "customers_kind_idx" ON "customers"("kind");

-- CreateIndex
CREATE INDEX IF NOT EXISTS "referrals_referrer_customer_id_id_idx" ON "referrals"("referrer_customer_id", "id" DESC);

-- CreateIndex
CREATE INDEX IF NOT EXISTS "referrals_assigned_agent_id_idx" ON "referrals"("assigned_agent_id");

-- CreateIndex
CREATE INDEX IF NOT EXISTS "audit_entries_referral_id_idx" ON "audit_entries"("referral_id");

-- Register the host's existing source accounts by normalised name (trimmed,
-- single-spaced, lower case: lib/leads/source-name.ts); the oldest wins a tie.
INSERT INTO "lead_source_names" ("key", "customer_id")
SELECT lower(regexp_replace(btrim("name"), '\s+', ' ', 'g')), "id"
FROM "customers"
WHERE "kind" = 'source'
ORDER BY "created_at", "id"
ON CONFLICT ("key") DO NOTHING;
