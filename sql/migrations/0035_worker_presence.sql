-- discern schema, version 35: a worker's liveness is a fact PostgreSQL holds. A worker with a
-- direct connection holds a session-level advisory lock (namespace 1684632419, key
-- presence_key) for as long as it runs; a rescuer reads pg_locks and hands back the jobs of a
-- worker whose session is gone, without waiting for heartbeats to go stale (docs/design.md,
-- "Rescue"). Workers of earlier releases register without a key and are judged by their
-- heartbeats, as before: this migration may run beside them.
CREATE SEQUENCE discern.worker_presence_keys AS integer MINVALUE 1 CYCLE;

ALTER TABLE discern.workers ADD COLUMN presence_key integer;
COMMENT ON COLUMN discern.workers.presence_key IS
    'The advisory lock (1684632419, presence_key) the worker''s session holds while it runs; NULL: it holds none (a transaction pooler without a direct URL, or an older release) and is judged by its heartbeats.';

-- The database server the workers talk to, as the rescuers last saw it: a restart, a crash
-- recovery or a failover changes it, and for a while after (first_seen_at) a live worker may
-- not have reconnected yet, so no rescuer takes a missing session for a dead worker.
CREATE TABLE discern.database_epoch (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    server_started_at timestamptz NOT NULL,
    stats_reset_at timestamptz,
    first_seen_at timestamptz NOT NULL DEFAULT now()
);
