-- Cancels jobs that have not finished (available or running); returns how many. A running job's
-- worker finds its lease gone at its next heartbeat and discards its work. `discern cancel`, the
-- console's Jobs page and psql users call it.
CREATE OR REPLACE FUNCTION discern.cancel(job_ids bigint[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    cancelled integer;
BEGIN
    UPDATE discern.jobs
    SET state = 'cancelled', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
    WHERE id = ANY(job_ids) AND state IN ('available', 'running');
    GET DIAGNOSTICS cancelled = ROW_COUNT;
    -- The console's live pages (notify_change.sql): a cancel is rare, never on a worker's path.
    IF cancelled > 0 THEN
        PERFORM pg_notify('discern_changes', '');
    END IF;
    RETURN cancelled;
END;
$$;
