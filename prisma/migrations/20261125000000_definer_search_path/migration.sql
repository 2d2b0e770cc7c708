-- The module's trigger functions run as their owner (SECURITY DEFINER) with the search_path of the session that
-- created them ("$user", public by default). A search_path that does not name pg_temp searches it FIRST for tables, so
-- any role that may write referrals or customers (the host's own application roles) could create a temporary table
-- named like a count table and have the owner's trigger write there instead, leaving the real counts wrong.
-- PostgreSQL's advice for SECURITY DEFINER functions: name the trusted schema, then pg_temp last. The trusted schema is
-- the one each function lives in (with the module's tables), whatever schema the host installed the module into.
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
