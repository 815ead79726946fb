-- discern schema, version 27: an operator deletes jobs that are over (discern.delete_jobs) and
-- finds jobs by file name and day (discern.matching_jobs); both in sql/functions.
ALTER TABLE discern.operator_actions DROP CONSTRAINT operator_actions_action_check;
ALTER TABLE discern.operator_actions ADD CONSTRAINT operator_actions_action_check
    CHECK (action IN ('retry', 'cancel', 'delete', 'pause', 'resume', 'review'));

-- Each job's file name, lower case: what the "file" filter matches the start of ("img_12" finds
-- /photos/night/IMG_1234.jpg) through an index, at any queue size. A table of its own, written
-- once when the job is enqueued (sql/functions/note_job_files.sql): an index on jobs would be
-- written again by every claim, heartbeat and completion (a job's row moves on each; the queue
-- ran at 0.85x with one, bench/RESULTS.md).
CREATE TABLE discern.job_files (
    job_id bigint PRIMARY KEY,
    name text NOT NULL
);
INSERT INTO discern.job_files (job_id, name)
SELECT id, lower(reverse(split_part(reverse(image_path), '/', 1))) FROM discern.jobs;
CREATE INDEX job_files_name ON discern.job_files (name text_pattern_ops);
-- The day filter: jobs are inserted in created_at order, so a BRIN index of a few pages answers it.
CREATE INDEX jobs_created_at ON discern.jobs USING brin (created_at);
