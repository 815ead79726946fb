-- Turns the batches that ended into events (migration 0031): reads the checks the jobs' own
-- statements appended (discern.note_jobs_changed), and for each batch with no job waiting or
-- running writes its event (batch_events, with discern.batch_event_report) once none of its jobs
-- has finished for `settle_seconds`: a batch that photos still trickle into, each done before the
-- next arrives, is announced once at the end of the trickle, not once per photo. A batch that
-- ended but has not settled keeps its check for the next call; one with work left drops it (the
-- job that ends it will append another). Checks are read committed only: a check is committed
-- with the change that may end its batch, so the last of two concurrent completions is judged
-- after both. Every worker calls it every few seconds; an advisory lock lets one run at a time
-- (the others return 0), and the event's unique key (batch, generation) makes a second writer
-- a no-op. Returns how many batches it announced.
CREATE OR REPLACE FUNCTION discern.announce_batches(settle_seconds double precision) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    announced integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('discern.announce_batches')) THEN
        RETURN 0;
    END IF;
    WITH taken AS (DELETE FROM discern.pending_batch_checks RETURNING batch_id),
    ended AS (
        SELECT b.id, b.generation FROM discern.batches b
        WHERE b.id IN (SELECT batch_id FROM taken)
          AND NOT EXISTS (SELECT 1 FROM discern.batch_events e WHERE e.batch_id = b.id AND e.generation = b.generation)
          AND NOT EXISTS (SELECT 1 FROM discern.jobs j WHERE j.batch_id = b.id AND j.state IN ('available', 'running'))
          AND EXISTS (SELECT 1 FROM discern.jobs j WHERE j.batch_id = b.id)),
    timed AS (SELECT e.id, e.generation, (SELECT max(j.finished_at) FROM discern.jobs j WHERE j.batch_id = e.id) AS last_finished
              FROM ended e),
    unsettled AS (
        INSERT INTO discern.pending_batch_checks (batch_id)
        SELECT t.id FROM timed t WHERE t.last_finished > now() - make_interval(secs => settle_seconds)),
    added AS (
        INSERT INTO discern.batch_events (batch_id, generation, ended_at, report)
        SELECT t.id, t.generation, t.last_finished, discern.batch_event_report(t.id) FROM timed t
        WHERE t.last_finished IS NULL OR t.last_finished <= now() - make_interval(secs => settle_seconds)
        ON CONFLICT (batch_id, generation) DO NOTHING
        RETURNING 1)
    SELECT count(*) INTO announced FROM added;
    RETURN announced;
END;
$$;
