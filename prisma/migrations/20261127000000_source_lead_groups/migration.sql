-- GET /api/leads of one source seeks a deep offset as the whole list does, and neither sum grows with the number of
-- blocks (docs/decisions.md, "Deep offsets are sought, not walked"). Each source's leads are counted per block of
-- 1,024 ids too, and both the whole list's blocks and each source's are summed per group of 1,024 blocks: a seek sums
-- the groups, then the blocks of one group, then walks at most one block's records. Same rules as the blocks: per-
-- connection slots, written in the record's own statement, a record counts when its referrer is a source at the time
-- of the write. Writers wait for this migration (bounded by its lock timeout), so the backfill misses no record.
LOCK TABLE "referrals" IN SHARE ROW EXCLUSIVE MODE;

-- CreateTable
CREATE TABLE "lead_source_lead_groups" (
    "block_group" INTEGER NOT NULL,
    "slot" INTEGER NOT NULL,
    "total" INTEGER NOT NULL,

    CONSTRAINT "lead_source_lead_groups_pkey" PRIMARY KEY ("block_group", "slot")
);

-- CreateTable
CREATE TABLE "lead_per_source_lead_blocks" (
    "customer_id" TEXT NOT NULL,
    "block" INTEGER NOT NULL,
    "slot" INTEGER NOT NULL,
    "total" INTEGER NOT NULL,

    CONSTRAINT "lead_per_source_lead_blocks_pkey" PRIMARY KEY ("customer_id", "block", "slot")
);

-- CreateTable
CREATE TABLE "lead_per_source_lead_groups" (
    "customer_id" TEXT NOT NULL,
    "block_group" INTEGER NOT NULL,
    "slot" INTEGER NOT NULL,
    "total" INTEGER NOT NULL,

    CONSTRAINT "lead_per_source_lead_groups_pkey" PRIMARY KEY ("customer_id", "block_group", "slot")
);

REVOKE ALL ON TABLE "lead_source_lead_groups", "lead_per_source_lead_blocks", "lead_per_source_lead_groups" FROM PUBLIC;

CREATE OR REPLACE FUNCTION "lead_intake_count_referrals"() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
  own_slot INTEGER := pg_backend_pid() % 16;
  -- A group is as many blocks as a block is ids.
  per_group CONSTANT INTEGER := "lead_intake_lead_block_size"();
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
    DELETE FROM "lead_source_lead_groups";
    DELETE FROM "lead_per_source_lead_blocks";
    DELETE FROM "lead_per_source_lead_groups";
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
    -- One referrer in one block, as every POST writes: plain upserts cost less than the set statement below, and the
    -- source's five in one statement cost less than five statements.
    INSERT INTO "lead_referrer_counts" AS c ("customer_id", "slot", "total") VALUES (referrers[1], own_slot, counts[1])
    ON CONFLICT ("customer_id", "slot") DO UPDATE SET "total" = c."total" + EXCLUDED."total";
    IF EXISTS (SELECT 1 FROM "customers" WHERE "id" = referrers[1] AND "kind" = 'source') THEN
      WITH "source_total" AS (
        INSERT INTO "lead_source_lead_counts" AS c ("slot", "total") VALUES (own_slot, counts[1])
        ON CONFLICT ("slot") DO UPDATE SET "total" = c."total" + EXCLUDED."total"
      ), "source_block" AS (
        INSERT INTO "lead_source_lead_blocks" AS b ("block", "slot", "total") VALUES (blocks[1], own_slot, counts[1])
        ON CONFLICT ("block", "slot") DO UPDATE SET "total" = b."total" + EXCLUDED."total"
      ), "source_group" AS (
        INSERT INTO "lead_source_lead_groups" AS g ("block_group", "slot", "total")
        VALUES (blocks[1] / per_group, own_slot, counts[1])
        ON CONFLICT ("block_group", "slot") DO UPDATE SET "total" = g."total" + EXCLUDED."total"
      ), "own_block" AS (
        INSERT INTO "lead_per_source_lead_blocks" AS b ("customer_id", "block", "slot", "total")
        VALUES (referrers[1], blocks[1], own_slot, counts[1])
        ON CONFLICT ("customer_id", "block", "slot") DO UPDATE SET "total" = b."total" + EXCLUDED."total"
      )
      INSERT INTO "lead_per_source_lead_groups" AS g ("customer_id", "block_group", "slot", "total")
      VALUES (referrers[1], blocks[1] / per_group, own_slot, counts[1])
      ON CONFLICT ("customer_id", "block_group", "slot") DO UPDATE SET "total" = g."total" + EXCLUDED."total";
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
    SELECT d."referrer", d."block", d."n" FROM "delta" d WHERE d."referrer" IN (SELECT "referrer" FROM "sources")
  ), "per_block" AS (
    INSERT INTO "lead_source_lead_blocks" AS b ("block", "slot", "total")
    SELECT "block", own_slot, sum("n")::int FROM "sourced" GROUP BY "block" HAVING sum("n") <> 0
    ON CONFLICT ("block", "slot") DO UPDATE SET "total" = b."total" + EXCLUDED."total"
  ), "per_group" AS (
    INSERT INTO "lead_source_lead_groups" AS g ("block_group", "slot", "total")
    SELECT "block" / per_group, own_slot, sum("n")::int FROM "sourced" GROUP BY 1 HAVING sum("n") <> 0
    ON CONFLICT ("block_group", "slot") DO UPDATE SET "total" = g."total" + EXCLUDED."total"
  ), "per_source_block" AS (
    -- The delta holds one row per referrer and block already.
    INSERT INTO "lead_per_source_lead_blocks" AS b ("customer_id", "block", "slot", "total")
    SELECT "referrer", "block", own_slot, "n" FROM "sourced"
    ON CONFLICT ("customer_id", "block", "slot") DO UPDATE SET "total" = b."total" + EXCLUDED."total"
  ), "per_source_group" AS (
    INSERT INTO "lead_per_source_lead_groups" AS g ("customer_id", "block_group", "slot", "total")
    SELECT "referrer", "block" / per_group, own_slot, sum("n")::int FROM "sourced" GROUP BY 1, 2 HAVING sum("n") <> 0
    ON CONFLICT ("customer_id", "block_group", "slot") DO UPDATE SET "total" = g."total" + EXCLUDED."total"
  )
  INSERT INTO "lead_source_lead_counts" AS c ("slot", "total")
  SELECT own_slot, sum("n")::int FROM "sourced" HAVING sum("n") <> 0
  ON CONFLICT ("slot") DO UPDATE SET "total" = c."total" + EXCLUDED."total";
  RETURN NULL;
END
$$;

-- CREATE OR REPLACE set search_path from this session; name the function's own schema, then pg_temp last, again.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', 'lead_intake_count_referrals()'::regprocedure,
                 (SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                  WHERE p.oid = 'lead_intake_count_referrals()'::regprocedure));
END
$$;

-- Count the existing source records: the groups from the blocks they sum, each source's blocks in one pass.
INSERT INTO "lead_source_lead_groups" ("block_group", "slot", "total")
SELECT "block" / "lead_intake_lead_block_size"(), 0, sum("total")
FROM "lead_source_lead_blocks" GROUP BY 1 HAVING sum("total") <> 0;
INSERT INTO "lead_per_source_lead_blocks" ("customer_id", "block", "slot", "total")
SELECT r."referrer_customer_id", r."id" / "lead_intake_lead_block_size"(), 0, count(*)
FROM "referrals" r JOIN "customers" c ON c."id" = r."referrer_customer_id" AND c."kind" = 'source'
GROUP BY 1, 2;
INSERT INTO "lead_per_source_lead_groups" ("customer_id", "block_group", "slot", "total")
SELECT "customer_id", "block" / "lead_intake_lead_block_size"(), 0, sum("total")
FROM "lead_per_source_lead_blocks" GROUP BY 1, 2;
