-- The referral-count trigger function runs as its owner (SECURITY DEFINER) with the search_path of the session that
-- created it ("$user", public by default). A search_path that does not name pg_temp searches it FIRST for tables, so
-- any role that may write referrals (the host's own application roles) could create a temporary table named
-- "lead_referrer_counts" and have the owner's trigger write there instead, leaving the real counts wrong. PostgreSQL's
-- advice for SECURITY DEFINER functions: name the trusted schema, then pg_temp last. The trusted schema is the one the
-- function lives in (with the module's tables), whatever schema the host installed the module into.
DO $$
DECLARE
  fn CONSTANT regprocedure := 'lead_intake_count_referrals()'::regprocedure;
BEGIN
  EXECUTE format(
    'ALTER FUNCTION %s SET search_path = %I, pg_temp',
    fn,
    (SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = fn)
  );
END
$$;
