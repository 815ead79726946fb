-- discern schema, version 4: a completion that writes less. Every succeeded job costs one
-- UPDATE of its job and one INSERT of its result; bench/queue measured where that time goes
-- (bench/RESULTS.md, "Queue") and these changes take away the parts nobody reads back.

-- 1. No foreign key from results to jobs. The key checked every result row against its job
-- with a trigger, although the row is written by the very statement that completes that job
-- (QueueSQL.complete). Its one action, ON DELETE SET NULL, now lives in discern.prune, which
-- detaches the results of the jobs it deletes: `results.job_id IS NULL` still means "the job
-- was pruned". results.job_id stays UNIQUE: one result per job, ever.
ALTER TABLE discern.results DROP CONSTRAINT results_job_id_fkey;

CREATE OR REPLACE FUNCTION discern.prune(older_than interval, batch_size integer DEFAULT 10000) RETURNS integer
LANGUAGE sql AS $$
    WITH doomed AS (
        SELECT id FROM discern.jobs
        WHERE finished_at < now() - older_than AND state IN ('succeeded', 'dead', 'cancelled')
        ORDER BY finished_at
        LIMIT batch_size
        FOR UPDATE SKIP LOCKED
    ), deleted AS (
        DELETE FROM discern.jobs j USING doomed WHERE j.id = doomed.id RETURNING j.id
    ), detached AS (
        UPDATE discern.results r SET job_id = NULL FROM deleted WHERE r.job_id = deleted.id
    )
    SELECT count(*)::integer FROM deleted;
$$;

-- 2. Block-range (BRIN) indexes where rows arrive in the order of the indexed column. A BRIN
-- index keeps the range of values of each run of pages instead of one entry per row, so an
-- insert or update rarely writes to it at all.
--   results.created_at: results are only ever appended, in time order. Time-window queries
--   (dashboards, the throughput views) read the matching page ranges.
--   jobs.batch_id: a batch's jobs are enqueued together (COPY, enqueue_many), so they sit on
--   neighbouring pages; per-batch queries (batch_progress, retry_batch, discern report) read
--   those ranges and check each row. The b-tree it replaces was written twice per job (claim,
--   completion) because both change the indexed state.
DROP INDEX discern.results_created_at;
CREATE INDEX results_created_at ON discern.results USING brin (created_at);

DROP INDEX discern.jobs_batch;
CREATE INDEX jobs_batch ON discern.jobs USING brin (batch_id);
