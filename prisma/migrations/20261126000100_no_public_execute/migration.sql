-- PostgreSQL grants EXECUTE on a new function to PUBLIC. A trigger function needs no EXECUTE to fire, only to be
-- attached, so any login could attach the module's SECURITY DEFINER count functions to a table of its own and have
-- them write the counts as their owner. Every function of the module in its schema grants nothing to PUBLIC, except
-- the two immutable plain functions that run as their caller and read nothing: lead_intake_source_key, which the
-- index customers_source_key_idx evaluates on every write of customers by any of the host's roles (PostgreSQL checks
-- EXECUTE there), and lead_intake_lead_block_size, which the listing calls. A later migration that adds a function
-- revokes it the same way (tests/integration/borrowed-privilege.test.ts holds every one).
DO $$
DECLARE
  fn RECORD;
BEGIN
  FOR fn IN
    SELECT p.oid::regprocedure AS signature
    FROM pg_proc p
    WHERE p.proname LIKE 'lead\_intake\_%'
      AND p.proname NOT IN ('lead_intake_source_key', 'lead_intake_lead_block_size')
      AND p.pronamespace = (SELECT pronamespace FROM pg_proc WHERE oid = 'lead_intake_count_referrals()'::regprocedure)
  LOOP
    EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', fn.signature);
  END LOOP;
END
$$;
