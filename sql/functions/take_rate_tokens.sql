-- Reserves consecutive slots of a rate limit's schedule, shared by every worker (GCRA: calls
-- spaced 60 / per_minute seconds, up to `burst` of them ahead). The worker's rate gate asks for
-- as many as the limit allows in a quarter of a second (at most `wanted` and 64), so a limit far
-- from binding costs a statement per lease rather than per call; a binding one (48 a minute)
-- grants one. Slot i is first_wait + i * spacing seconds from now (free at once when negative).
-- No row for a key without a limit.
CREATE OR REPLACE FUNCTION discern.take_rate_tokens(limit_key text, wanted integer)
RETURNS TABLE (first_wait double precision, spacing double precision, granted integer)
LANGUAGE plpgsql AS $$
DECLARE
    bucket discern.rate_limits;
    moment timestamptz := clock_timestamp();
    gap interval;
    due timestamptz;
    taken integer;
BEGIN
    SELECT * INTO bucket FROM discern.rate_limits WHERE key = limit_key FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;  -- no limit: no row at all
    END IF;
    gap := make_interval(secs => 60 / bucket.per_minute);
    taken := least(greatest(wanted, 1), 64, greatest(1, floor(bucket.per_minute / 60 / 4))::integer);
    due := greatest(coalesce(bucket.next_at, moment), moment);
    UPDATE discern.rate_limits SET next_at = due + taken * gap WHERE key = limit_key;
    -- Slot i is due + i * gap; up to `burst` run ahead of the schedule. Negative: already free.
    first_wait := extract(epoch FROM due - (bucket.burst - 1) * gap - moment);
    spacing := extract(epoch FROM gap);
    granted := taken;
    RETURN NEXT;
END;
$$;
