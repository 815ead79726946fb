-- Tells the console's live pages that something they show changed: jobs deleted, a worker
-- starting or stopping, an operator's action. `discern console` LISTENs on 'discern_changes' (and
-- on 'discern_jobs', which enqueues and retries send) and pushes an event to open pages, which
-- fetch themselves again. Jobs a worker claims, finishes or rescues are announced by it, at most
-- once a second and outside the claim's or completion's transaction (ChangeAnnouncer), and a
-- cancel by discern.cancel: a NOTIFY in every claim or completion serialises the commits of every worker (the queue ran at
-- 0.88x, bench/RESULTS.md). PostgreSQL folds one transaction's identical notifications into one.
CREATE OR REPLACE FUNCTION discern.notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('discern_changes', '');
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS jobs_deleted ON discern.jobs;
CREATE TRIGGER jobs_deleted AFTER DELETE ON discern.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION discern.notify_change();

DROP TRIGGER IF EXISTS operator_acted ON discern.operator_actions;
CREATE TRIGGER operator_acted AFTER INSERT ON discern.operator_actions
    FOR EACH STATEMENT EXECUTE FUNCTION discern.notify_change();

DROP TRIGGER IF EXISTS worker_started ON discern.workers;
CREATE TRIGGER worker_started AFTER INSERT ON discern.workers
    FOR EACH ROW EXECUTE FUNCTION discern.notify_change();

-- A heartbeat sets stopped_at too (to NULL): only a real change notifies.
DROP TRIGGER IF EXISTS worker_stopped ON discern.workers;
CREATE TRIGGER worker_stopped AFTER UPDATE OF stopped_at ON discern.workers
    FOR EACH ROW WHEN (OLD.stopped_at IS DISTINCT FROM NEW.stopped_at) EXECUTE FUNCTION discern.notify_change();
