-- Source leads per block of 1,024 referral ids, kept by the count trigger in per-connection slots like the other
-- counts, so that GET /api/leads seeks a deep offset instead of walking to it: summing the blocks from the newest
-- finds the block that holds the offset and how many of its leads to skip; only those are walked (offset 500,000
-- of 1M leads walked every skipped record and checked its referrer's kind: 2.0 to 3.7 s). Counted in the same
-- transaction as the record, so a reader's snapshot sees blocks and records alike; a record counts when its
-- referrer is a source at the time of the write, like lead_source_lead_counts.

-- The one home of the block size: the trigger and the listing's seek (lib/leads/list-leads.ts) both call it.
CREATE FUNCTION "lead_intake_lead_block_size"() RETURNS INTEGER LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 1024 $$;

-- CreateTable
CREATE TABLE "lead_source_lead_blocks" (
    "block" INTEGER NOT NULL,
    "slot" INTEGER NOT NULL,
    "total" INTEGER NOT NULL,

    CONSTRAINT "lead_source_lead_blocks_pkey" PRIMARY KEY ("block", "slot")
);

-- A record's block follows its id too, so an update of the id moves its count.
CREATE OR REPLACE FUNCTION "lead_intake_count_referrals"() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
  own_slot INTEGER := pg_backend_pid() % 16;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM "lead_referrer_counts";
    DELETE FROM "lead_source_lead_counts";
    DELETE FROM "lead_source_lead_blocks";
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD."referrer_customer_id" = NEW."referrer_customer_id" AND OLD."id" = NEW."id" THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "lead_referrer_counts" AS c ("customer_id", "slot", "total") VALUES (OLD."referrer_customer_id", own_slot, -1)
    ON CONFLICT ("customer_id", "slot") DO UPDATE SET "total" = c."total" - 1;
    IF EXISTS (SELECT 1 FROM "customers" WHERE "id" = OLD."referrer_customer_id" AND "kind" = 'source') THEN
      INSERT INTO "lead_source_lead_counts" AS c ("slot", "total") VALUES (own_slot, -1)
      ON CONFLICT ("slot") DO UPDATE SET "total" = c."total" - 1;
      INSERT INTO "lead_source_lead_blocks" AS b ("block", "slot", "total")
      VALUES (OLD."id" / "lead_intake_lead_block_size"(), own_slot, -1)
      ON CONFLICT ("block", "slot") DO UPDATE SET "total" = b."total" - 1;
    END IF;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO "lead_referrer_counts" AS c ("customer_id", "slot", "total") VALUES (NEW."referrer_customer_id", own_slot, 1)
    ON CONFLICT ("customer_id", "slot") DO UPDATE SET "total" = c."total" + 1;
    IF EXISTS (SELECT 1 FROM "customers" WHERE "id" = NEW."referrer_customer_id" AND "kind" = 'source') THEN
      INSERT INTO "lead_source_lead_counts" AS c ("slot", "total") VALUES (own_slot, 1)
      ON CONFLICT ("slot") DO UPDATE SET "total" = c."total" + 1;
      INSERT INTO "lead_source_lead_blocks" AS b ("block", "slot", "total")
      VALUES (NEW."id" / "lead_intake_lead_block_size"(), own_slot, 1)
      ON CONFLICT ("block", "slot") DO UPDATE SET "total" = b."total" + 1;
    END IF;
  END IF;
  RETURN NULL;
END
$$;

-- Fired by every update, not UPDATE OF the two columns: a column a trigger definition names can no longer change
-- type, and the host must stay free to alter its referrals table. The function returns at once when neither changed.
DROP TRIGGER "lead_intake_count_referrals" ON "referrals";
CREATE TRIGGER "lead_intake_count_referrals"
AFTER INSERT OR DELETE OR UPDATE ON "referrals"
FOR EACH ROW EXECUTE FUNCTION "lead_intake_count_referrals"();

-- Count the existing source records.
INSERT INTO "lead_source_lead_blocks" ("block", "slot", "total")
SELECT r."id" / "lead_intake_lead_block_size"(), 0, count(*)
FROM "referrals" r JOIN "customers" c ON c."id" = r."referrer_customer_id" AND c."kind" = 'source'
GROUP BY 1;
