-- Lifts the pauses a spent cap made (paused_by 'spend cap', take_rate_tokens.sql) once the
-- service has room again: a new day or month, a cap raised or removed. A pause an operator made
-- stays. Workers call it with their roll-up, every few seconds; the waiting jobs' workers are
-- woken as by discern.resume. Returns how many services it let go.
CREATE OR REPLACE FUNCTION discern.lift_spent_caps() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    lifted integer;
BEGIN
    DELETE FROM discern.paused_backends p
    WHERE p.paused_by = 'spend cap'
      AND NOT EXISTS (
          SELECT 1 FROM discern.service_budgets b
          WHERE b.backend = p.backend AND discern.cap_calls(b) - discern.cap_used(b.backend, b.cap_period, now()) < 1);
    GET DIAGNOSTICS lifted = ROW_COUNT;
    IF lifted > 0 THEN
        PERFORM pg_notify('discern_jobs', '');
        PERFORM pg_notify('discern_changes', '');
    END IF;
    RETURN lifted;
END;
$$;
