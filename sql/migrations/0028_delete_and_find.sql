-- discern schema, version 28: an operator deletes jobs that are over (dead or cancelled: the
-- broken files of a night, a batch enqueued by mistake), and finds jobs by file name and day.
--
-- discern.delete_jobs deletes only dead and cancelled jobs: a waiting or running job is
-- cancelled first, and a succeeded job stays (its result is the product; `discern prune` ages
-- it out). The roll-ups forget what is deleted, as they do for prune.
CREATE FUNCTION discern.delete_jobs(job_ids bigint[]) RETURNS integer
LANGUAGE sql AS $$
    WITH deleted AS (
        DELETE FROM discern.jobs WHERE id = ANY(job_ids) AND state IN ('dead', 'cancelled') RETURNING 1
    )
    SELECT count(*)::integer FROM deleted;
$$;

ALTER TABLE discern.operator_actions DROP CONSTRAINT operator_actions_action_check;
ALTER TABLE discern.operator_actions ADD CONSTRAINT operator_actions_action_check
    CHECK (action IN ('retry', 'cancel', 'delete', 'pause', 'resume', 'review'));

-- A path's file name: what the console's "file" filter matches the start of, case aside
-- ("img_12" finds /photos/night/IMG_1234.jpg), through an index, at any queue size.
CREATE FUNCTION discern.file_name(path text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT lower(reverse(split_part(reverse(path), '/', 1))) $$;
CREATE INDEX jobs_file_name ON discern.jobs (discern.file_name(image_path) text_pattern_ops);
-- The day filter: jobs are inserted in created_at order, so a BRIN index of a few pages answers it.
CREATE INDEX jobs_created_at ON discern.jobs USING brin (created_at);

-- Which jobs a filter matches: the one definition behind the jobs list (`discern jobs`, the
-- console's Jobs), the count a confirmation page shows, and retry / cancel / delete over a
-- filter. Every argument may be NULL (no condition). `file` is the start of the file's name,
-- case aside, taken literally (% and _ are not wildcards); `from_day` and `to_day` bound the
-- day the job was enqueued, both included.
-- A plain SQL function: the planner inlines it into each query, with the caller's values, so
-- the indexes of whichever conditions are given are used.
CREATE FUNCTION discern.matching_jobs(state text, batch text, error_kind text, backend text,
                                      file text, from_day date, to_day date)
RETURNS SETOF discern.jobs LANGUAGE sql STABLE AS $$
    SELECT j.* FROM discern.jobs j
    WHERE ($1 IS NULL OR j.state = $1)
      AND ($2 IS NULL OR j.batch_id = (SELECT b.id FROM discern.batches b WHERE b.name = $2))
      AND ($3 IS NULL OR j.error_kind = $3)
      AND ($4 IS NULL OR j.backend = $4)
      AND ($5 IS NULL OR discern.file_name(j.image_path)
                         LIKE replace(replace(replace(lower($5), '\', '\\'), '%', '\%'), '_', '\_') || '%')
      AND ($6 IS NULL OR j.created_at >= $6)
      AND ($7 IS NULL OR j.created_at < $7 + 1)
$$;
