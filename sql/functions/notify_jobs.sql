-- Wakes the workers: they LISTEN on 'discern_jobs' and claim at once (the console listens too).
-- One notification per statement, so a bulk insert of a million rows sends one, not a million; a
-- plain INSERT from psql wakes workers too.
CREATE OR REPLACE FUNCTION discern.notify_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('discern_jobs', '');
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS jobs_notify_insert ON discern.jobs;
CREATE TRIGGER jobs_notify_insert AFTER INSERT ON discern.jobs
FOR EACH STATEMENT EXECUTE FUNCTION discern.notify_jobs();

-- A job made claimable by an UPDATE (discern.retry, a rescued lease) wakes workers too. Only
-- rows that become available now: claims and completions must not wake everybody. PostgreSQL
-- folds identical notifications of one transaction into one.
DROP TRIGGER IF EXISTS jobs_notify_requeue ON discern.jobs;
CREATE TRIGGER jobs_notify_requeue AFTER UPDATE OF state ON discern.jobs
FOR EACH ROW WHEN (NEW.state = 'available' AND OLD.state <> 'available' AND NEW.run_at <= now())
EXECUTE FUNCTION discern.notify_jobs();
