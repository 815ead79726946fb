-- Cancels jobs that have not finished (available or running); returns how many. A running job's
-- worker finds its lease gone at its next heartbeat and discards its work. `discern cancel`, the
-- console's Jobs page and psql users call it.
CREATE OR REPLACE FUNCTION discern.cancel(job_ids bigint[]) RETURNS integer
LANGUAGE sql AS $$
    WITH cancelled AS (
        UPDATE discern.jobs
        SET state = 'cancelled', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id = ANY(job_ids) AND state IN ('available', 'running')
        RETURNING 1
    )
    SELECT count(*)::integer FROM cancelled;
$$;
