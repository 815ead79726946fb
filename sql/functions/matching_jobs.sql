-- Which jobs a filter matches: the one definition behind the jobs list (`discern jobs`, the
-- console's Jobs), the count a confirmation page shows, and retry / cancel / delete over a
-- filter. Every argument may be NULL (no condition). `file` is the start of the file's name,
-- case aside, taken literally (% and _ are not wildcards); `from_day` and `to_day` bound the
-- day the job was enqueued, both included.
-- A plain SQL function: the planner inlines it into each query, with the caller's values, so
-- the indexes of whichever conditions are given are used.
CREATE OR REPLACE FUNCTION discern.matching_jobs(state text, batch text, error_kind text, backend text,
                                      file text, from_day date, to_day date)
RETURNS SETOF discern.jobs LANGUAGE sql STABLE AS $$
    SELECT j.* FROM discern.jobs j
    -- The file name through its own index (discern.job_files, note_job_files.sql): a join, not
    -- an IN (subquery) under the OR, which the planner could only test job by job (a full scan
    -- when no name matches); without a name the join is dropped (job_id is its key).
    LEFT JOIN discern.job_files f ON $5 IS NOT NULL AND f.job_id = j.id
    WHERE ($1 IS NULL OR j.state = $1)
      AND ($2 IS NULL OR j.batch_id = (SELECT b.id FROM discern.batches b WHERE b.name = $2))
      AND ($3 IS NULL OR j.error_kind = $3)
      AND ($4 IS NULL OR j.backend = $4)
      AND ($5 IS NULL OR f.name LIKE replace(replace(replace(lower($5), '\', '\\'), '%', '\%'), '_', '\_') || '%')
      AND ($6 IS NULL OR j.created_at >= $6)
      AND ($7 IS NULL OR j.created_at < $7 + 1)
$$;
