-- The billed calls of a service in the cap period ('day' or 'month', UTC) that holds `at`: what
-- its spend cap is measured against (cap_calls.sql).
CREATE OR REPLACE FUNCTION discern.cap_used(backend text, period text, at timestamptz) RETURNS bigint
LANGUAGE sql STABLE AS $$
    SELECT coalesce(sum(c.calls), 0)::bigint FROM discern.billed_calls c
    WHERE c.backend = $1 AND c.day >= (date_trunc($2, $3, 'UTC') AT TIME ZONE 'UTC')::date;
$$;
