-- The service answered 429: pushes the key's schedule back to the Retry-After the service sent
-- (if any) from now, plus one burst's worth of spacing, so every worker slows down at once
-- instead of each finding out with its own 429. The Retry-After is a moment, not a debt: many
-- calls refused at once with "Retry-After: 10" push the schedule to 10 s from now, not 10 s each
-- (which once put 320 refused calls an hour out and held a breaker's probes past it). The
-- spacing still adds up: each refused call used a slot the service did not have.
CREATE OR REPLACE FUNCTION discern.rate_limited(limit_key text, retry_after_seconds double precision DEFAULT NULL) RETURNS void
LANGUAGE sql AS $$
    UPDATE discern.rate_limits
    SET next_at = greatest(coalesce(next_at, clock_timestamp()),
                           clock_timestamp() + make_interval(secs => greatest(coalesce(retry_after_seconds, 0), 0)))
                  + make_interval(secs => burst * 60 / per_minute)
    WHERE key = limit_key;
$$;
