-- Keeps discern.job_files, the file-name index of the jobs filter (discern.matching_jobs), in
-- step with the jobs: one row per job, written when the job is inserted and removed with it,
-- one statement per enqueue or prune (transition tables), never on the claims and completions
-- that update jobs; a TRUNCATE of jobs empties it. A job's image_path is never changed by
-- discern; after changes made by hand or with triggers off, discern.recount_rollups() rebuilds
-- it.
CREATE OR REPLACE FUNCTION discern.note_job_files() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO discern.job_files (job_id, name)
        SELECT id, lower(reverse(split_part(reverse(image_path), '/', 1))) FROM added
        ON CONFLICT (job_id) DO UPDATE SET name = excluded.name;
    ELSIF TG_OP = 'TRUNCATE' THEN
        TRUNCATE discern.job_files;
    ELSE
        DELETE FROM discern.job_files f USING removed r WHERE f.job_id = r.id;
    END IF;
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS jobs_file_names_added ON discern.jobs;
CREATE TRIGGER jobs_file_names_added AFTER INSERT ON discern.jobs
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION discern.note_job_files();

DROP TRIGGER IF EXISTS jobs_file_names_removed ON discern.jobs;
CREATE TRIGGER jobs_file_names_removed AFTER DELETE ON discern.jobs
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION discern.note_job_files();

DROP TRIGGER IF EXISTS jobs_file_names_truncated ON discern.jobs;
CREATE TRIGGER jobs_file_names_truncated AFTER TRUNCATE ON discern.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION discern.note_job_files();
