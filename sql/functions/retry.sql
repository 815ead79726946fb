-- Puts dead or cancelled jobs back in the queue with a fresh start; returns how many. Attempts,
-- the crash record (shared and solo crashes) and the given-back count are reset; the history of
-- earlier attempts stays in error_history. `discern retry`, the console and psql users call it.
CREATE OR REPLACE FUNCTION discern.retry(job_ids bigint[]) RETURNS integer
LANGUAGE sql AS $$
    WITH requeued AS (
        UPDATE discern.jobs
        SET state = 'available', attempts = 0, shared_crashes = 0, solo_crashes = 0, given_back = 0, preparing_by = NULL, run_at = now(),
            finished_at = NULL, error_kind = NULL, last_error = NULL, updated_at = now()
        WHERE id = ANY(job_ids) AND state IN ('dead', 'cancelled')
        RETURNING 1
    )
    SELECT count(*)::integer FROM requeued;
$$;
