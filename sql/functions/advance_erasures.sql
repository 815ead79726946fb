-- Moves erasures on (docs/operations.md, "Erasing a person"): each waiting step gets its job (made
-- again if it vanished: pruned, cancelled, deleted), a step whose job succeeded is done (its job
-- and the result that job wrote are deleted with the subject they name, the step keeps the
-- outcome and the time), a step whose job died is tried again with a fresh set of attempts
-- (`rounds` counts them; the error kind is kept) so a service that refuses is asked until it
-- deletes, and a request whose steps are all done is done. Called by every worker's roll-up
-- round, by `discern erase` and `discern erase --status`; cheap when nothing waits (a partial
-- index). Returns how many requests it finished. SECURITY DEFINER, as discern.erase.
CREATE OR REPLACE FUNCTION discern.advance_erasures() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    finished integer;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM discern.erasure_requests WHERE state = 'in_progress') THEN
        RETURN 0;
    END IF;
    -- Done: the service deleted its copy, or had none ('not_found').
    WITH done AS (
        SELECT s.request_id, s.step, s.job_id, r.outcome, r.created_at
        FROM discern.erasure_steps s
        JOIN discern.jobs j ON j.id = s.job_id AND j.state = 'succeeded'
        JOIN discern.results r ON r.job_id = j.id
        WHERE s.state = 'waiting'
        FOR UPDATE OF s SKIP LOCKED
    ), results_gone AS (
        DELETE FROM discern.results r USING done WHERE r.job_id = done.job_id
    ), jobs_gone AS (
        DELETE FROM discern.jobs j USING done WHERE j.id = done.job_id
    )
    UPDATE discern.erasure_steps s
    SET state = 'done', outcome = done.outcome, done_at = done.created_at, params = NULL, job_id = NULL, last_error_kind = NULL
    FROM done WHERE s.request_id = done.request_id AND s.step = done.step;

    -- Died (a refusal outlasted its attempts): asked again, with a fresh set of attempts.
    WITH dead AS (
        SELECT s.request_id, s.step, j.id AS job_id, j.error_kind
        FROM discern.erasure_steps s JOIN discern.jobs j ON j.id = s.job_id AND j.state = 'dead'
        WHERE s.state = 'waiting'
        FOR UPDATE OF s SKIP LOCKED
    ), again AS (
        UPDATE discern.jobs j SET state = 'available', attempts = 0, given_back = 0, run_at = now() + interval '1 minute',
                                  finished_at = NULL, updated_at = now()
        FROM dead WHERE j.id = dead.job_id
    )
    UPDATE discern.erasure_steps s SET rounds = s.rounds + 1, last_error_kind = dead.error_kind
    FROM dead WHERE s.request_id = dead.request_id AND s.step = dead.step;

    -- No job (new, or it vanished): one is made, ahead of every other job of its service.
    WITH missing AS (
        SELECT s.request_id, s.step, s.backend, s.action, s.params, s.job_id FROM discern.erasure_steps s
        WHERE s.state = 'waiting' AND (s.job_id IS NULL OR NOT EXISTS (
            SELECT 1 FROM discern.jobs j WHERE j.id = s.job_id AND j.state IN ('available', 'running', 'succeeded', 'dead')))
        FOR UPDATE OF s SKIP LOCKED
    ), stale AS (
        -- A cancelled one names the subject too: it goes.
        DELETE FROM discern.jobs j USING missing m WHERE j.id = m.job_id
    ), made AS (
        INSERT INTO discern.jobs (backend, action, image_path, params, priority, max_attempts)
        SELECT m.backend, m.action, 'erasure:' || m.request_id || ':' || m.step, m.params, -32768, 20 FROM missing m
        RETURNING id, image_path
    )
    UPDATE discern.erasure_steps s SET job_id = made.id
    FROM made WHERE made.image_path = 'erasure:' || s.request_id || ':' || s.step;

    UPDATE discern.erasure_requests r SET state = 'done', finished_at = coalesce(
            (SELECT max(s.done_at) FROM discern.erasure_steps s WHERE s.request_id = r.id), now())
    WHERE r.state = 'in_progress'
      AND NOT EXISTS (SELECT 1 FROM discern.erasure_steps s WHERE s.request_id = r.id AND s.state = 'waiting');
    GET DIAGNOSTICS finished = ROW_COUNT;
    RETURN finished;
END;
$$;
