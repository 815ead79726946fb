-- discern schema, version 26: each worker's pace, for the console's /workers. Its heartbeat
-- writes how many jobs it has finished (succeeded or dead) since it started, and how many a
-- minute over the last minute.
ALTER TABLE discern.workers
    ADD COLUMN jobs_finished bigint NOT NULL DEFAULT 0 CHECK (jobs_finished >= 0),
    ADD COLUMN jobs_per_minute double precision CHECK (jobs_per_minute >= 0);
