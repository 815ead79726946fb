-- discern schema, version 16: every retry loop ends, and a job's history stays small.
--
-- An attempt the service could not start (Image Discerner's ExecutionAlreadyExists, a worker too
-- loaded to keep its rate-limit slot) is given back: it does not use up the job's attempts. A
-- service that answered that way forever kept the job alive forever, uploading the photo again
-- each time, its error history growing without bound (issue 22). Now a job gets at most 10
-- attempts back (given_back); after that, such a failure counts like any other, and the job
-- ends dead when its attempts are used up, its last error saying the service kept refusing.
ALTER TABLE discern.jobs ADD COLUMN given_back smallint NOT NULL DEFAULT 0 CHECK (given_back >= 0);
COMMENT ON COLUMN discern.jobs.given_back IS
    'Attempts given back because the service could not start them (not the job''s fault); at 10, further ones count.';

-- A job's history keeps its last 100 entries, each error at most 500 characters: whatever
-- happens to a job, its row stays a few tens of kilobytes (discern.retry can start a job over
-- many times, and each start may fail many times).
CREATE FUNCTION discern.history_with(history jsonb, entry jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(jsonb_agg(e ORDER BY n), '[]'::jsonb)
    FROM (
        SELECT e, n FROM jsonb_array_elements(
            history || jsonb_build_array(entry || jsonb_build_object('error', left(entry->>'error', 500)))
        ) WITH ORDINALITY AS t(e, n)
        ORDER BY n DESC LIMIT 100
    ) AS kept;
$$;

-- discern.retry gives a job a fresh start: its crash record (migration 0014) and its given-back
-- count too.
CREATE OR REPLACE FUNCTION discern.retry(job_ids bigint[]) RETURNS integer
LANGUAGE sql AS $$
    WITH requeued AS (
        UPDATE discern.jobs
        SET state = 'available', attempts = 0, shared_crashes = 0, solo_crashes = 0, given_back = 0, run_at = now(),
            finished_at = NULL, error_kind = NULL, last_error = NULL, updated_at = now()
        WHERE id = ANY(job_ids) AND state IN ('dead', 'cancelled')
        RETURNING 1
    )
    SELECT count(*)::integer FROM requeued;
$$;

DO $grants$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_reader') THEN
        GRANT SELECT (given_back) ON discern.jobs TO discern_reader;
    END IF;
END;
$grants$;
