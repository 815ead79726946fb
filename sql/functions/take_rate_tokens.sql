-- Reserves consecutive slots of a rate limit's schedule, shared by every worker (GCRA: calls
-- spaced 60 / per_minute seconds, up to `burst` of them ahead). The worker's rate gate asks for
-- as many as the limit allows in a quarter of a second (at most `wanted` and 64), so a limit far
-- from binding costs a statement per lease rather than per call; a binding one (48 a minute)
-- grants one. Slot i is first_wait + i * spacing seconds from now (free at once when negative).
-- No row for a key without a limit. The slots taken are counted as the service's billed calls of
-- the day (discern.billed_calls, by the key's service: the part before ':'), whether the call
-- then succeeds or not: the services bill what reaches them. A slot whose call could not leave in
-- time is returned (discern.return_rate_token); one taken and never used otherwise (at a
-- run's end) counts too, so the count errs high, never low.
-- A service with a cap (discern.service_budgets) is granted no more slots than the cap leaves in
-- its period, every key of the service counted together under the budget's row lock, so the cap
-- holds across every worker. Under a cap slots are granted one at a time, so what is counted is
-- what is about to be sent; at the cap, none (granted 0, first_wait the seconds until the
-- period ends) and the service is paused by 'spend cap' until discern.lift_spent_caps() finds
-- room again (a new period, a raised cap).
CREATE OR REPLACE FUNCTION discern.take_rate_tokens(limit_key text, wanted integer)
RETURNS TABLE (first_wait double precision, spacing double precision, granted integer)
LANGUAGE plpgsql AS $$
DECLARE
    bucket discern.rate_limits;
    budget discern.service_budgets;
    service text := split_part(limit_key, ':', 1);
    period_start timestamptz;
    room numeric;
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
    SELECT * INTO budget FROM discern.service_budgets b
    WHERE b.backend = service AND (b.cap_calls IS NOT NULL OR b.cap_money IS NOT NULL) FOR UPDATE;
    IF FOUND THEN
        period_start := date_trunc(budget.cap_period, moment, 'UTC');
        room := discern.cap_calls(budget) - discern.cap_used(service, budget.cap_period, moment);
        IF room < 1 THEN
            INSERT INTO discern.paused_backends (backend, paused_by, reason)
            VALUES (service, 'spend cap', format('the %s cap (%s) is spent; it lifts itself when there is room again',
                                                 budget.cap_period, coalesce(budget.cap_calls || ' calls', budget.cap_money || ' at ' || budget.price_per_call || ' a call')))
            ON CONFLICT ON CONSTRAINT paused_backends_pkey DO NOTHING;
            first_wait := extract(epoch FROM period_start + ('1 ' || budget.cap_period)::interval - moment);
            spacing := 0;
            granted := 0;
            RETURN NEXT;
            RETURN;
        END IF;
        -- One slot at a time under a cap: a lease of many, spent on calls that never happen
        -- (the cap reached meanwhile), would use up the budget without a call made.
        taken := least(taken, room, 1)::integer;
    END IF;
    due := greatest(coalesce(bucket.next_at, moment), moment);
    UPDATE discern.rate_limits SET next_at = due + taken * gap WHERE key = limit_key;
    INSERT INTO discern.billed_calls AS b (backend, day, calls)
    VALUES (split_part(limit_key, ':', 1), (moment AT TIME ZONE 'UTC')::date, taken)
    ON CONFLICT (backend, day) DO UPDATE SET calls = b.calls + excluded.calls;
    -- Slot i is due + i * gap; up to `burst` run ahead of the schedule. Negative: already free.
    first_wait := extract(epoch FROM due - (bucket.burst - 1) * gap - moment);
    spacing := extract(epoch FROM gap);
    granted := taken;
    RETURN NEXT;
END;
$$;
