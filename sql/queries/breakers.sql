-- discern.service_breakers: the breakers shared by every worker, through their functions (JobQueue.Breakers).

-- name: trip
-- $1 service: text
-- $2 worker: text
-- $3 kind: text
-- $4 error: text
-- $5 probeAfterSeconds: float8
-- returns: opened boolean?
-- Marks the service unavailable for every worker (sql/functions/trip_breaker.sql); true when
-- this call did (it was closed).
SELECT discern.trip_breaker($1, $2, $3, $4, $5) AS opened;

-- name: probeFailed
-- $1 service: text
-- $2 worker: text
-- $3 job: bigint
-- $4 kind: text
-- $5 error: text
-- $6 firstDelay: float8
-- $7 maxDelay: float8
-- returns: wait float8?, failed_before integer?
-- A failed probe (sql/functions/breaker_probe_failed.sql): the wait until the next one, and
-- how often the probe's job had failed as one before; no row when the breaker closed
-- meanwhile or the probe was not ours.
SELECT * FROM discern.breaker_probe_failed($1, $2, $3, $4, $5, $6, $7);

-- name: close
-- $1 service: text
-- $2 by: text
-- $3 why: text
-- returns: closed boolean?
-- The service answered: its breaker closes (sql/functions/close_breaker.sql); true when it
-- was open.
SELECT discern.close_breaker($1, $2, $3) AS closed;

-- name: open
-- $1 services: text[]
-- returns: service text, probe_in float8?
-- Which of the services `$1` are unavailable now, each with the seconds until its next probe
-- may go (0 when due).
SELECT backend AS service, greatest(0, extract(epoch FROM next_probe_at - now()))::float8 AS probe_in
FROM discern.service_breakers WHERE backend = ANY($1::text[]);
