-- discern schema, version 15: a key with no limit says so.
--
-- discern.take_rate_token answered 0 ("go now") both for a key whose limit has room and for a
-- key with no limit at all. A worker now holds every limited call to its slot: a call that
-- could not leave within 0.2 s of its slot (a loaded machine) takes a new one, because the
-- service counts calls where they arrive (RateSlot in Sources/Backends). A key without a limit
-- has no slot to keep, so it answers NULL, and nothing is ever re-reserved for it.
CREATE OR REPLACE FUNCTION discern.take_rate_token(limit_key text) RETURNS double precision
LANGUAGE plpgsql AS $$
DECLARE
    bucket discern.rate_limits;
    moment timestamptz := clock_timestamp();
    spacing interval;
    due timestamptz;
BEGIN
    SELECT * INTO bucket FROM discern.rate_limits WHERE key = limit_key FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    spacing := make_interval(secs => 60 / bucket.per_minute);
    -- The theoretical arrival time of the next call; a quiet spell leaves it in the past.
    due := greatest(coalesce(bucket.next_at, moment), moment);
    UPDATE discern.rate_limits SET next_at = due + spacing WHERE key = limit_key;
    -- Up to `burst` calls may run ahead of the schedule.
    RETURN greatest(extract(epoch FROM due - (bucket.burst - 1) * spacing - moment), 0);
END;
$$;
