-- discern schema, version 26: the console's live pages are told when something they show
-- changed. A job changing state (claimed, finished, failed, retried, cancelled), a worker
-- starting or stopping, and an operator's action each send a notification on
-- 'discern_changes'; `discern console` LISTENs and pushes it to open pages (server-sent
-- events), which fetch themselves again. Heartbeats notify nothing.
--
-- Row-level with a WHEN clause, so a statement that changes no state (a heartbeat, a claim that
-- finds nothing) calls nothing; within one transaction PostgreSQL folds identical
-- notifications into one, so a completion batch or a bulk retry sends one.
CREATE FUNCTION discern.notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('discern_changes', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER jobs_state_changed AFTER UPDATE OF state ON discern.jobs
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION discern.notify_change();
CREATE TRIGGER jobs_deleted AFTER DELETE ON discern.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION discern.notify_change();
CREATE TRIGGER worker_started AFTER INSERT ON discern.workers
    FOR EACH ROW EXECUTE FUNCTION discern.notify_change();
-- A heartbeat sets stopped_at too (to NULL): only a real change notifies.
CREATE TRIGGER worker_stopped AFTER UPDATE OF stopped_at ON discern.workers
    FOR EACH ROW WHEN (OLD.stopped_at IS DISTINCT FROM NEW.stopped_at) EXECUTE FUNCTION discern.notify_change();
CREATE TRIGGER operator_acted AFTER INSERT ON discern.operator_actions
    FOR EACH STATEMENT EXECUTE FUNCTION discern.notify_change();
