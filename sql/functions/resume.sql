-- Lets workers claim a paused service's jobs again (`discern resume`, the console's Overview),
-- and closes its breaker if the service was found unavailable (discern.close_breaker): an
-- operator who knows it is back need not wait for the next probe. True when it was paused or
-- unavailable and runs again. It notifies 'discern_jobs', so the listening workers claim its
-- waiting jobs at once rather than at their next poll.
CREATE OR REPLACE FUNCTION discern.resume(backend text) RETURNS boolean
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    unpaused boolean;
BEGIN
    DELETE FROM discern.paused_backends p WHERE p.backend = backend;
    unpaused := FOUND;
    IF unpaused THEN
        PERFORM pg_notify('discern_jobs', '');
    END IF;
    RETURN discern.close_breaker(backend, current_user, 'resumed by hand') OR unpaused;
END;
$$;
