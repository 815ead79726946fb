-- The service answered 429: pushes the key's whole schedule back, by the Retry-After the service
-- sent (if any) plus one burst's worth of spacing, so every worker slows down at once instead of
-- each finding out with its own 429. The worker's rate gate calls it.
CREATE OR REPLACE FUNCTION discern.rate_limited(limit_key text, retry_after_seconds double precision DEFAULT NULL) RETURNS void
LANGUAGE sql AS $$
    UPDATE discern.rate_limits
    SET next_at = greatest(coalesce(next_at, clock_timestamp()), clock_timestamp())
                  + make_interval(secs => coalesce(retry_after_seconds, 0) + burst * 60 / per_minute)
    WHERE key = limit_key;
$$;
