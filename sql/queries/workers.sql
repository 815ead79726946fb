-- discern.workers: the workers' registry, and what a worker says to the server beside its jobs (JobQueue.WorkerRegistry, JobQueue.JobQueue).

-- name: register
-- $1 worker: text
-- $2 host: text
-- $3 pid: integer
-- $4 version: text
-- $5 services: text[]
-- $6 heartbeatSeconds: float8
-- $7 presence: boolean
-- returns: presence_key integer?
-- Registers a worker, or registers it again; with `$7`, hands out the key of the presence lock
-- its session is to hold (the same one again for a worker registering again).
INSERT INTO discern.workers (id, host, pid, version, backends, heartbeat_seconds, presence_key)
VALUES ($1, $2, $3, $4, $5::text[], $6, CASE WHEN $7::boolean THEN nextval('discern.worker_presence_keys')::integer END)
ON CONFLICT (id) DO UPDATE SET last_heartbeat_at = now(), stopped_at = NULL,
    presence_key = CASE WHEN $7::boolean THEN coalesce(discern.workers.presence_key, excluded.presence_key) END
RETURNING presence_key;

-- name: heartbeat
-- $1 worker: text
-- $2 finished: integer
-- $3 perMinute: float8?
-- Renews a worker's heartbeat, with the jobs it finished since it started and how many a
-- minute lately (the console's /workers).
UPDATE discern.workers SET last_heartbeat_at = now(), stopped_at = NULL, jobs_finished = $2, jobs_per_minute = $3 WHERE id = $1;

-- name: stopped
-- $1 worker: text
-- Marks a worker stopped.
UPDATE discern.workers SET stopped_at = now() WHERE id = $1;

-- name: forgetOld
-- returns: nothing
-- Forgets workers stopped or silent for more than a day.
DELETE FROM discern.workers WHERE coalesce(stopped_at, last_heartbeat_at) < now() - interval '1 day';

-- name: announceChanges
-- $1 channel: text
-- Tells listening consoles that jobs changed, on the channel `$1`: a statement of its own,
-- never inside a completion's transaction (a NOTIFY serialises the commits that send it).
SELECT pg_notify($1, '');

-- name: ping
-- returns: nothing
-- Whether the database answers at all (a rescuer's check that it is back).
SELECT 1;
