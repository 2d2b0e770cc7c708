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

-- CreateIndex (only where the host has assignment storage: some host databases
-- have no referrals.assigned_agent_id, see lib/db/layout.ts)
DO $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'referrals' AND column_name = 'assigned_agent_id'
    ) THEN
        CREATE INDEX IF NOT EXISTS "referrals_assigned_agent_id_idx" ON "referrals"("assigned_agent_id");
    END IF;
END $$;

-- CreateIndex
CREATE INDEX IF NOT EXISTS "audit_entries_referral_id_idx" ON "audit_entries"("referral_id");

-- Register the host's existing source accounts by normalised name (runs of white
-- space made one space, then trimmed, lower case: lib/leads/source-name.ts); the
-- oldest wins a tie.
INSERT INTO "lead_source_names" ("key", "customer_id")
SELECT lower(btrim(regexp_replace("name", '\s+', ' ', 'g'))), "id"
FROM "customers"
WHERE "kind" = 'source'
ORDER BY "created_at", "id"
ON CONFLICT ("key") DO NOTHING;

-- CreateTable
CREATE TABLE "lead_referrer_counts" (
    "customer_id" TEXT NOT NULL,
    "total" INTEGER NOT NULL,

    CONSTRAINT "lead_referrer_counts_pkey" PRIMARY KEY ("customer_id")
);

-- Records per referrer, kept exact by every write to referrals (the module's and
-- the host's own), so GET /api/leads never counts a million rows. It runs as its
-- owner (SECURITY DEFINER, search_path fixed to this schema's), so the host's own
-- roles keep writing referrals with the grants they had, none on this table.
CREATE FUNCTION "lead_intake_count_referrals"() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM "lead_referrer_counts";
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD."referrer_customer_id" = NEW."referrer_customer_id" THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE "lead_referrer_counts" SET "total" = "total" - 1 WHERE "customer_id" = OLD."referrer_customer_id";
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO "lead_referrer_counts" ("customer_id", "total") VALUES (NEW."referrer_customer_id", 1)
    ON CONFLICT ("customer_id") DO UPDATE SET "total" = "lead_referrer_counts"."total" + 1;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "lead_intake_count_referrals"
AFTER INSERT OR DELETE OR UPDATE OF "referrer_customer_id" ON "referrals"
FOR EACH ROW EXECUTE FUNCTION "lead_intake_count_referrals"();

CREATE TRIGGER "lead_intake_count_referrals_truncate"
AFTER TRUNCATE ON "referrals"
FOR EACH STATEMENT EXECUTE FUNCTION "lead_intake_count_referrals"();

-- Count the host's existing records.
INSERT INTO "lead_referrer_counts" ("customer_id", "total")
SELECT "referrer_customer_id", count(*) FROM "referrals" GROUP BY "referrer_customer_id";
