-- Retention (`discern prune --days N`): deletes up to batch_size jobs that finished before
-- now() - older_than, oldest first, and detaches their results (job_id becomes NULL: no foreign
-- key does it, so completions check none). It never makes a worker wait, nor waits long itself:
-- it takes only rows no worker touches, skips locked ones, and lock_timeout gives up after 2 s
-- (SQLSTATE 55P03; `discern prune` tries again). Planned per call with its values (EXECUTE): a
-- generic plan does not know the cut-off and, at 20 million rows, read whole indexes for every
-- chunk (12 s per 1,000 jobs instead of 17 ms).
CREATE OR REPLACE FUNCTION discern.prune(older_than interval, batch_size integer DEFAULT 10000) RETURNS integer
LANGUAGE plpgsql SET lock_timeout = '2s' AS $$
DECLARE
    deleted integer;
BEGIN
    EXECUTE 'WITH doomed AS (
                 SELECT id FROM discern.jobs
                 WHERE finished_at < $1 AND state IN (''succeeded'', ''dead'', ''cancelled'')
                 ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED
             ), deleted AS (
                 DELETE FROM discern.jobs j USING doomed WHERE j.id = doomed.id RETURNING j.id
             ), detached AS (
                 UPDATE discern.results r SET job_id = NULL FROM deleted WHERE r.job_id = deleted.id
             )
             SELECT count(*)::integer FROM deleted'
    INTO deleted USING now() - older_than, batch_size;
    RETURN deleted;
END;
$$;
