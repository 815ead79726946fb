-- discern schema, version 27: an operator deletes jobs that are over (discern.delete_jobs) and
-- finds jobs by file name and day (discern.matching_jobs); both in sql/functions.
ALTER TABLE discern.operator_actions DROP CONSTRAINT operator_actions_action_check;
ALTER TABLE discern.operator_actions ADD CONSTRAINT operator_actions_action_check
    CHECK (action IN ('retry', 'cancel', 'delete', 'pause', 'resume', 'review'));

-- A path's file name, lower case: what the "file" filter matches the start of ("img_12" finds
-- /photos/night/IMG_1234.jpg) through this index, at any queue size. discern.matching_jobs
-- writes the same expression, to the letter, so the planner uses it.
CREATE INDEX jobs_file_name ON discern.jobs (lower(reverse(split_part(reverse(image_path), '/', 1))) text_pattern_ops);
-- The day filter: jobs are inserted in created_at order, so a BRIN index of a few pages answers it.
CREATE INDEX jobs_created_at ON discern.jobs USING brin (created_at);
