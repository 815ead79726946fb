-- discern schema, version 18: a limit far from binding costs a statement per lease, not per call.
--
-- Every limited call reserved its own slot: one statement on the worker's queue connection per
-- call, beside its claims (bench/scale: 20,000 reservations for 20,000 no-op jobs). A worker may
-- now take several consecutive slots at once, as many as the limit allows in a quarter of a
-- second (at most 64), and use them itself, each at its own moment: nothing about the schedule
-- changes, and a slot a worker does not use in time is lost, never given to a second call. A
-- limit that binds (Image Discerner's 48 a minute) grants one slot at a time, as before.
CREATE FUNCTION discern.take_rate_tokens(limit_key text, wanted integer)
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

DO $grants$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_worker') THEN
        GRANT EXECUTE ON FUNCTION discern.take_rate_tokens(text, integer) TO discern_worker;
    END IF;
END;
$grants$;
