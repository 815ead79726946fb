-- discern schema, version 36: a crash counts against a file only when its worker stopped while
-- preparing it alone. A worker running a suspect (a job that ran beside three crashes) writes
-- its own id here before it reads the file and clears it once the file is prepared; a rescuer
-- counts the crash (solo_crashes) only when the mark names the worker that stopped. A worker
-- killed while the job waited on its service, or while it held the job alone by chance (the
-- tail of a night under a crash loop), gives the attempt back (docs/design.md, "How crashes
-- count"). Workers of earlier releases never mark: beside them a suspect's crashes are given
-- back, as a healthy job's are, until they are upgraded.
ALTER TABLE discern.jobs ADD COLUMN preparing_by text;
COMMENT ON COLUMN discern.jobs.preparing_by IS
    'The worker preparing this job''s file alone, while it does (set only for a job that runs alone); a worker that stops with its own id here counts the crash against the file (solo_crashes).';
COMMENT ON COLUMN discern.jobs.shared_crashes IS
    'Times a worker stopped (crash, kill, hang) holding this job, other than while preparing it alone; the attempt was given back. From 3 on, the job runs alone.';
COMMENT ON COLUMN discern.jobs.solo_crashes IS
    'Times a worker stopped while preparing this job''s file alone; counted as attempts. At 3 the job is dead (worker_crashed).';
