-- A slot taken from discern.take_rate_tokens that was never used: its call did not leave (a
-- loaded worker woke past the slot's lateness, `slotMissed`). It is taken off the service's
-- billed calls of the day, so missed slots do not spend a spend cap with calls no service saw;
-- the schedule keeps it (the moment has passed). Never below zero. A slot taken before midnight
-- UTC and returned after it comes off the new day: at most the slots in flight at midnight.
CREATE OR REPLACE FUNCTION discern.return_rate_token(limit_key text) RETURNS void
LANGUAGE sql AS $$
    UPDATE discern.billed_calls
    SET calls = calls - 1
    WHERE backend = split_part(limit_key, ':', 1) AND day = (now() AT TIME ZONE 'UTC')::date AND calls > 0;
$$;
