-- Tells the console's live pages that something they show changed: a job's state, jobs deleted, a
-- worker starting or stopping, an operator's action. `discern console` LISTENs on
-- 'discern_changes' and pushes an event to open pages, which fetch themselves again. The row
-- triggers have WHEN clauses, so heartbeats and claims that find nothing send nothing, and
-- PostgreSQL folds one transaction's identical notifications into one (a completion batch or a
-- bulk retry sends one).
CREATE OR REPLACE FUNCTION discern.notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('discern_changes', '');
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS jobs_deleted ON discern.jobs;
CREATE TRIGGER jobs_deleted AFTER DELETE ON discern.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION discern.notify_change();

DROP TRIGGER IF EXISTS jobs_state_changed ON discern.jobs;
CREATE TRIGGER jobs_state_changed AFTER UPDATE OF state ON discern.jobs
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION discern.notify_change();

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
