-- discern schema, version 14: a job pays for its own crashes, never for its neighbours'.
--
-- When a worker stops without finishing (SIGKILL, out of memory, a segfault in a decoder, a
-- hang), every job it held is handed back by the rescuer. Until now each of them kept the
-- attempt its claim had counted, so a healthy job that stood next to crashes a few times was
-- killed out of its five attempts by bad luck alone (the chaos test saw 3 of 1,000 end dead).
-- A crash cannot say which job caused it; when the worker held one job only, it can:
--  * shared_crashes: the worker stopped while it held this job and others. The attempt is
--    given back; the job is not to blame.
--  * solo_crashes: the worker stopped while this job was all it held. The attempt counts.
-- A job that crashes its worker takes its neighbours down with it, so it would only ever
-- collect shared crashes. After 3 of them it is a suspect: workers claim it only when they hold
-- nothing else and then claim nothing more until it is done (it runs alone), so its next crash
-- is its own. After 3 solo crashes it is dead, error_kind 'worker_crashed'. A job that crashes
-- its worker therefore stops within 6 crashes; a healthy one survives any number of its
-- neighbours' crashes (docs/design.md, "How crashes count"). discern.retry clears the counts
-- (migration 0016, with the rest of a fresh start).
ALTER TABLE discern.jobs
    ADD COLUMN shared_crashes smallint NOT NULL DEFAULT 0 CHECK (shared_crashes >= 0),
    ADD COLUMN solo_crashes smallint NOT NULL DEFAULT 0 CHECK (solo_crashes >= 0);

COMMENT ON COLUMN discern.jobs.shared_crashes IS
    'Times a worker stopped (crash, kill, hang) while holding this job and others; the attempt was given back. From 3 on, the job runs alone.';
COMMENT ON COLUMN discern.jobs.solo_crashes IS
    'Times a worker stopped while this job was all it held; counted as attempts. At 3 the job is dead (worker_crashed).';

-- Suspects wait here, apart from the claimable index's ordinary jobs: a worker with nothing in
-- hand looks them up first, and nobody else reads them.
CREATE INDEX jobs_claimable_alone ON discern.jobs (backend, priority, run_at, id)
    WHERE state = 'available' AND shared_crashes >= 3;

-- Dashboards see the crash record (discern_reader reads jobs column by column, migration 0006).
DO $grants$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_reader') THEN
        GRANT SELECT (shared_crashes, solo_crashes) ON discern.jobs TO discern_reader;
    END IF;
END;
$grants$;
