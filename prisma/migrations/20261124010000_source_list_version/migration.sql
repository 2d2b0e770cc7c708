-- A version of the list of source accounts: the number of changes made to it, kept by a trigger on customers, so
-- GET /api/leads/sources can answer a caller that already has the current list with 304 Not Modified after one
-- read of at most 16 rows, instead of reading and sending every source (397 ms and 10.5 MB at 100,000 sources).
-- Every committed transaction that changes the list adds one, so two different lists never have the same version:
-- a snapshot sees the changes committed before it, in commit order. Once per transaction, not per row: a row
-- updated again and again in one transaction leaves a version behind each time that the next update walks
-- (100,000 sources added in one statement would take minutes). Counted in per-connection slots, like the lead
-- counts, so concurrent new sources do not queue on one row's lock. Which rows count is decided in the function, not
-- in the triggers' WHEN or UPDATE OF: a column a trigger definition names can no longer change type, and the host
-- must stay free to alter its customers table.

-- CreateTable
CREATE TABLE "lead_source_list_versions" (
    "slot" INTEGER NOT NULL,
    "changes" BIGINT NOT NULL,

    CONSTRAINT "lead_source_list_versions_pkey" PRIMARY KEY ("slot")
);

CREATE FUNCTION "lead_intake_count_source_changes"() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
  -- Only source accounts, and of an update only a change of what the list shows.
  IF TG_OP = 'INSERT' AND NEW."kind" IS DISTINCT FROM 'source' THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' AND OLD."kind" IS DISTINCT FROM 'source' THEN RETURN NULL; END IF;
  IF TG_OP = 'UPDATE' AND (
    (OLD."kind" IS DISTINCT FROM 'source' AND NEW."kind" IS DISTINCT FROM 'source')
    OR (OLD."id", OLD."kind", OLD."name", OLD."source_type") IS NOT DISTINCT FROM (NEW."id", NEW."kind", NEW."name", NEW."source_type")
  ) THEN
    RETURN NULL;
  END IF;
  -- Set for the rest of this transaction (and undone with it, or with a rolled-back savepoint).
  IF current_setting('lead_intake.source_list_changed', true) IS DISTINCT FROM 'yes' THEN
    PERFORM set_config('lead_intake.source_list_changed', 'yes', true);
    INSERT INTO "lead_source_list_versions" AS v ("slot", "changes") VALUES (pg_backend_pid() % 16, 1)
    ON CONFLICT ("slot") DO UPDATE SET "changes" = v."changes" + 1;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "lead_intake_count_source_changes"
AFTER INSERT OR UPDATE OR DELETE ON "customers"
FOR EACH ROW EXECUTE FUNCTION "lead_intake_count_source_changes"();

CREATE TRIGGER "lead_intake_count_source_truncates"
AFTER TRUNCATE ON "customers"
FOR EACH STATEMENT EXECUTE FUNCTION "lead_intake_count_source_changes"();
