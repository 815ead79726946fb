-- Deletes results (with their entities and corrections) created before now() - older_than, oldest
-- first, up to batch_size per call: for installations that keep results for a limited time
-- (`discern prune --results-days N`). The roll-ups keep counting them. A pruned result no longer
-- marks its content as analysed: the file is enqueued again if it is still there. Like
-- discern.prune it skips locked rows, waits at most 2 s and is planned per call.
CREATE OR REPLACE FUNCTION discern.prune_results(older_than interval, batch_size integer DEFAULT 10000) RETURNS integer
LANGUAGE plpgsql SET lock_timeout = '2s' AS $$
DECLARE
    deleted integer;
BEGIN
    -- (A generic plan sorted every old result for each chunk: 7.5 s per 1,000 instead of 15 ms.)
    EXECUTE 'WITH doomed AS (
                 SELECT id FROM discern.results WHERE created_at < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED
             ), deleted AS (
                 DELETE FROM discern.results r USING doomed WHERE r.id = doomed.id RETURNING 1
             )
             SELECT count(*)::integer FROM deleted'
    INTO deleted USING now() - older_than, batch_size;
    RETURN deleted;
END;
$$;
