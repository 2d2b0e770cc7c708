-- The kept counts follow a set-based write in time linear in its rows (docs/decisions.md, "The host's bulk writes stay
-- linear"). Row triggers updated the same few count rows once per row inside one transaction, so each update walked
-- the versions its predecessors left. Each statement on referrals now fires one trigger that reads its transition
-- tables (the rows it inserted, deleted or changed), nets them per referrer and per block of ids with GROUP BY, and
-- writes each count row at most once. The counts mean what they meant: a record counts for the source
-- totals and blocks when its referrer is a source at the time of the write; an update that changes neither the id nor
-- the referrer of any row nets to nothing and writes nothing; TRUNCATE empties them.
--
-- Both functions act only when fired on the table they were made for (TG_RELID against the table of that name in their
-- own schema: their search_path is that schema, then pg_temp), so attached to any other table they do nothing.
--
-- The sources list version no longer trusts a session setting to bump once per transaction (a session could set it
-- first and change sources without moving the version): each slot row remembers the transaction that last bumped it,
-- and a transaction bumps its connection's slot only when it is not that transaction, so later rows write nothing.
--
-- The triggers still name no column, so the host stays free to change its columns' types; on referrals, one trigger
-- per event, as PostgreSQL allows transition tables only on a trigger of one event.

-- AlterTable
ALTER TABLE "lead_source_list_versions" ADD COLUMN "last_transaction" BIGINT;

CREATE OR REPLACE FUNCTION "lead_intake_count_referrals"() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
  own_slot INTEGER := pg_backend_pid() % 16;
  -- The statement's rows netted per referrer and block of ids: added minus removed.
  referrers TEXT[];
  blocks INTEGER[];
  counts INTEGER[];
BEGIN
  IF TG_RELID IS DISTINCT FROM to_regclass('"referrals"') THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM "lead_referrer_counts";
    DELETE FROM "lead_source_lead_counts";
    DELETE FROM "lead_source_lead_blocks";
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    SELECT array_agg(g."referrer"), array_agg(g."block"), array_agg(g."n") INTO referrers, blocks, counts
    FROM (SELECT "referrer_customer_id"::text AS "referrer", ("id" / "lead_intake_lead_block_size"())::int AS "block",
                 count(*)::int AS "n"
          FROM "lead_intake_new_rows" GROUP BY 1, 2) g;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(g."referrer"), array_agg(g."block"), array_agg(g."n") INTO referrers, blocks, counts
    FROM (SELECT "referrer_customer_id"::text AS "referrer", ("id" / "lead_intake_lead_block_size"())::int AS "block",
                 -count(*)::int AS "n"
          FROM "lead_intake_old_rows" GROUP BY 1, 2) g;
  ELSE
    SELECT array_agg(g."referrer"), array_agg(g."block"), array_agg(g."n") INTO referrers, blocks, counts
    FROM (SELECT d."referrer", d."block", sum(d."n")::int AS "n"
          FROM (SELECT "referrer_customer_id"::text AS "referrer",
                       ("id" / "lead_intake_lead_block_size"())::int AS "block", 1 AS "n"
                FROM "lead_intake_new_rows"
                UNION ALL
                SELECT "referrer_customer_id"::text, ("id" / "lead_intake_lead_block_size"())::int, -1
                FROM "lead_intake_old_rows") d
          GROUP BY 1, 2 HAVING sum(d."n") <> 0) g;
  END IF;
  IF referrers IS NULL THEN
    RETURN NULL;
  END IF;
  IF cardinality(referrers) = 1 THEN
    -- One referrer in one block, as every POST writes: three plain upserts cost less than the set statement below.
    INSERT INTO "lead_referrer_counts" AS c ("customer_id", "slot", "total") VALUES (referrers[1], own_slot, counts[1])
    ON CONFLICT ("customer_id", "slot") DO UPDATE SET "total" = c."total" + EXCLUDED."total";
    IF EXISTS (SELECT 1 FROM "customers" WHERE "id" = referrers[1] AND "kind" = 'source') THEN
      INSERT INTO "lead_source_lead_counts" AS c ("slot", "total") VALUES (own_slot, counts[1])
      ON CONFLICT ("slot") DO UPDATE SET "total" = c."total" + EXCLUDED."total";
      INSERT INTO "lead_source_lead_blocks" AS b ("block", "slot", "total") VALUES (blocks[1], own_slot, counts[1])
      ON CONFLICT ("block", "slot") DO UPDATE SET "total" = b."total" + EXCLUDED."total";
    END IF;
    RETURN NULL;
  END IF;
  -- Each referrer's kind is read once, not once per row.
  WITH "delta" AS (
    SELECT * FROM unnest(referrers, blocks, counts) AS d("referrer", "block", "n")
  ), "per_referrer" AS (
    INSERT INTO "lead_referrer_counts" AS c ("customer_id", "slot", "total")
    SELECT "referrer", own_slot, sum("n")::int FROM "delta" GROUP BY "referrer" HAVING sum("n") <> 0
    ON CONFLICT ("customer_id", "slot") DO UPDATE SET "total" = c."total" + EXCLUDED."total"
  ), "sources" AS (
    SELECT r."referrer" FROM (SELECT DISTINCT "referrer" FROM "delta") r
    WHERE EXISTS (SELECT 1 FROM "customers" s WHERE s."id" = r."referrer" AND s."kind" = 'source')
  ), "sourced" AS (
    SELECT d."block", d."n" FROM "delta" d WHERE d."referrer" IN (SELECT "referrer" FROM "sources")
  ), "per_block" AS (
    INSERT INTO "lead_source_lead_blocks" AS b ("block", "slot", "total")
    SELECT "block", own_slot, sum("n")::int FROM "sourced" GROUP BY "block" HAVING sum("n") <> 0
    ON CONFLICT ("block", "slot") DO UPDATE SET "total" = b."total" + EXCLUDED."total"
  )
  INSERT INTO "lead_source_lead_counts" AS c ("slot", "total")
  SELECT own_slot, sum("n")::int FROM "sourced" HAVING sum("n") <> 0
  ON CONFLICT ("slot") DO UPDATE SET "total" = c."total" + EXCLUDED."total";
  RETURN NULL;
END
$$;

-- The row trigger, whichever text of the source_lead_blocks migration made it.
DROP TRIGGER IF EXISTS "lead_intake_count_referrals" ON "referrals";
CREATE TRIGGER "lead_intake_count_referral_inserts" AFTER INSERT ON "referrals"
REFERENCING NEW TABLE AS "lead_intake_new_rows"
FOR EACH STATEMENT EXECUTE FUNCTION "lead_intake_count_referrals"();
CREATE TRIGGER "lead_intake_count_referral_updates" AFTER UPDATE ON "referrals"
REFERENCING OLD TABLE AS "lead_intake_old_rows" NEW TABLE AS "lead_intake_new_rows"
FOR EACH STATEMENT EXECUTE FUNCTION "lead_intake_count_referrals"();
CREATE TRIGGER "lead_intake_count_referral_deletes" AFTER DELETE ON "referrals"
REFERENCING OLD TABLE AS "lead_intake_old_rows"
FOR EACH STATEMENT EXECUTE FUNCTION "lead_intake_count_referrals"();

-- The sources list version keeps its row triggers (a lead's person row, the most frequent write, returns before any
-- statement runs); only what bumps it once per transaction changes.
CREATE OR REPLACE FUNCTION "lead_intake_count_source_changes"() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
  own_transaction BIGINT;
BEGIN
  IF TG_RELID IS DISTINCT FROM to_regclass('"customers"') THEN
    RETURN NULL;
  END IF;
  -- Only source accounts, and of an update only a change of what the list shows.
  IF TG_OP = 'INSERT' AND NEW."kind" IS DISTINCT FROM 'source' THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' AND OLD."kind" IS DISTINCT FROM 'source' THEN RETURN NULL; END IF;
  IF TG_OP = 'UPDATE' AND (
    (OLD."kind" IS DISTINCT FROM 'source' AND NEW."kind" IS DISTINCT FROM 'source')
    OR (OLD."id", OLD."kind", OLD."name", OLD."source_type")
       IS NOT DISTINCT FROM (NEW."id", NEW."kind", NEW."name", NEW."source_type")
  ) THEN
    RETURN NULL;
  END IF;
  -- Once per transaction, not per row: a slot row updated again and again in one transaction leaves a version behind
  -- each time that the next update walks. Once this transaction has marked its slot, later rows change nothing; a
  -- rolled-back savepoint takes the count and the mark back together.
  own_transaction := pg_current_xact_id()::text::bigint;
  INSERT INTO "lead_source_list_versions" AS v ("slot", "changes", "last_transaction")
  VALUES (pg_backend_pid() % 16, 1, own_transaction)
  ON CONFLICT ("slot") DO UPDATE SET "changes" = v."changes" + 1, "last_transaction" = own_transaction
  WHERE v."last_transaction" IS DISTINCT FROM own_transaction;
  RETURN NULL;
END
$$;

-- One row trigger for insert, update and delete, whichever text of the source_list_version migration made them (some
-- made one per event, with a WHEN and UPDATE OF that named columns).
DROP TRIGGER IF EXISTS "lead_intake_count_source_inserts" ON "customers";
DROP TRIGGER IF EXISTS "lead_intake_count_source_updates" ON "customers";
DROP TRIGGER IF EXISTS "lead_intake_count_source_deletes" ON "customers";
DROP TRIGGER IF EXISTS "lead_intake_count_source_changes" ON "customers";
CREATE TRIGGER "lead_intake_count_source_changes"
AFTER INSERT OR UPDATE OR DELETE ON "customers"
FOR EACH ROW EXECUTE FUNCTION "lead_intake_count_source_changes"();

-- CREATE OR REPLACE set search_path from this session; name the functions' own schema, then pg_temp last, again.
DO $$
DECLARE
  fn RECORD;
BEGIN
  FOR fn IN
    SELECT p.oid::regprocedure AS signature, n.nspname AS schema
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE p.prosecdef AND p.proname LIKE 'lead\_intake\_%'
      AND p.pronamespace = (SELECT pronamespace FROM pg_proc WHERE oid = 'lead_intake_count_referrals()'::regprocedure)
  LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', fn.signature, fn.schema);
  END LOOP;
END
$$;
