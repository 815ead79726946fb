-- discern schema, version 7: a registry of workers. Each `discern work` process registers at
-- start, heartbeats every few seconds and says when it stops: `discern status` shows who is
-- working, alerts can ask "is anyone serving this backend", and the rescuer hands back the jobs
-- of a worker that stopped heartbeating at once, instead of waiting for each lease to expire.
CREATE TABLE discern.workers (
    id                 text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
    host               text NOT NULL,
    pid                integer NOT NULL,
    version            text NOT NULL,
    backends           text[] NOT NULL,
    heartbeat_seconds  double precision NOT NULL CHECK (heartbeat_seconds > 0),
    started_at         timestamptz NOT NULL DEFAULT now(),
    last_heartbeat_at  timestamptz NOT NULL DEFAULT now(),
    stopped_at         timestamptz
);

-- A worker is live while it heartbeats; three missed heartbeats and it is taken for dead.
CREATE VIEW discern.live_workers AS
SELECT id, host, pid, version, backends, started_at, last_heartbeat_at
FROM discern.workers
WHERE stopped_at IS NULL AND last_heartbeat_at > now() - make_interval(secs => 3 * heartbeat_seconds);

-- Backends with jobs waiting and no live worker serving them: an alert's question.
CREATE VIEW discern.unserved_backends AS
SELECT q.backend, q.jobs AS waiting
FROM (SELECT backend, count(*) AS jobs FROM discern.jobs WHERE state = 'available' AND run_at <= now() GROUP BY backend) q
WHERE NOT EXISTS (SELECT 1 FROM discern.live_workers w WHERE q.backend = ANY (w.backends));
