-- Per-referrer counts were one row per referrer: concurrent creations for one
-- source all waited on that row's lock until commit, which halved creation
-- throughput at 16 connections. Each referrer's count is now split over up to 16
-- slots, one per database connection (its backend pid modulo 16); the total is
-- the sum of the slots, which GET /api/leads already reads.

-- AlterTable
ALTER TABLE "lead_referrer_counts" ADD COLUMN "slot" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "lead_referrer_counts" ALTER COLUMN "slot" DROP DEFAULT;
ALTER TABLE "lead_referrer_counts" DROP CONSTRAINT "lead_referrer_counts_pkey",
ADD CONSTRAINT "lead_referrer_counts_pkey" PRIMARY KEY ("customer_id", "slot");

-- A delete or move subtracts in the slot of the connection that makes it, so one
-- slot can go below zero; only the sum is a count.
CREATE OR REPLACE FUNCTION "lead_intake_count_referrals"() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
  own_slot INTEGER := pg_backend_pid() % 16;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM "lead_referrer_counts";
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD."referrer_customer_id" = NEW."referrer_customer_id" THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "lead_referrer_counts" AS c ("customer_id", "slot", "total") VALUES (OLD."referrer_customer_id", own_slot, -1)
    ON CONFLICT ("customer_id", "slot") DO UPDATE SET "total" = c."total" - 1;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO "lead_referrer_counts" AS c ("customer_id", "slot", "total") VALUES (NEW."referrer_customer_id", own_slot, 1)
    ON CONFLICT ("customer_id", "slot") DO UPDATE SET "total" = c."total" + 1;
  END IF;
  RETURN NULL;
END
$$;
