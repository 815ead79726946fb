-- Lets workers claim a paused service's jobs again (`discern resume`, the console's Overview).
-- True when it was paused and runs again. It notifies 'discern_jobs', so the listening workers
-- claim its waiting jobs at once rather than at their next poll.
CREATE OR REPLACE FUNCTION discern.resume(backend text) RETURNS boolean
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
BEGIN
    DELETE FROM discern.paused_backends p WHERE p.backend = backend;
    IF FOUND THEN
        PERFORM pg_notify('discern_jobs', '');
    END IF;
    RETURN FOUND;
END;
$$;
