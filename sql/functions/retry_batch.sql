-- Re-queues every dead job of the named batch through discern.retry; returns how many. For psql
-- users: `discern retry --batch` selects through discern.matching_jobs instead.
CREATE OR REPLACE FUNCTION discern.retry_batch(batch text) RETURNS integer
LANGUAGE sql AS $$
    SELECT discern.retry(coalesce(array_agg(j.id), '{}'))
    FROM discern.jobs j JOIN discern.batches b ON b.id = j.batch_id
    WHERE b.name = batch AND j.state = 'dead';
$$;
