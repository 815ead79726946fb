-- A worker saw a service fail for reasons of its own (refused or reset connections, timeouts,
-- 5xx, 429 beyond Retry-After) across several jobs (the worker's BreakerWindow): the service is
-- marked unavailable for every worker. No job of it is claimed until a probe it answers closes
-- the breaker (claim_jobs, close_breaker); the first probe may go `probe_after` seconds from now.
-- True when this call opened it, false when it was open already. Recorded in the operator log;
-- open consoles are told.
CREATE OR REPLACE FUNCTION discern.trip_breaker(backend text, worker text, error_kind text, error text,
                                                probe_after double precision) RETURNS boolean
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
BEGIN
    INSERT INTO discern.service_breakers (backend, opened_by, error_kind, last_error, next_probe_at)
    VALUES (backend, left(worker, 200), left(error_kind, 100), left(error, 1000),
            now() + make_interval(secs => greatest(probe_after, 0)))
    ON CONFLICT ON CONSTRAINT service_breakers_pkey DO NOTHING;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    INSERT INTO discern.operator_actions (actor, action, scope)
    VALUES (left(worker, 200), 'unavailable', left(format('service %s: %s: %s', backend, error_kind, error), 1000));
    PERFORM pg_notify('discern_changes', '');
    RETURN true;
END;
$$;
