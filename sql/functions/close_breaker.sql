-- The service answered again (a probe got an answer that is not a fault of the service's, or an
-- operator ran `discern resume`): its breaker closes, every listening worker is woken to claim
-- its jobs at once, and the operator log says how long it was away. True when it was open.
CREATE OR REPLACE FUNCTION discern.close_breaker(backend text, closed_by text, why text) RETURNS boolean
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    closed discern.service_breakers;
BEGIN
    DELETE FROM discern.service_breakers b WHERE b.backend = backend RETURNING b.* INTO closed;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    INSERT INTO discern.operator_actions (actor, action, scope)
    VALUES (left(closed_by, 200), 'available', left(format('service %s: %s, after %s unavailable and %s failed probe(s)',
            backend, why, date_trunc('second', now() - closed.opened_at), closed.probes_failed), 1000));
    PERFORM pg_notify('discern_jobs', '');
    PERFORM pg_notify('discern_changes', '');
    RETURN true;
END;
$$;
