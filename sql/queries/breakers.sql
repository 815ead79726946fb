-- discern.service_breakers: the breakers shared by every worker, through their functions (JobQueue.Breakers).

-- name: trip
-- Marks the service unavailable for every worker (sql/functions/trip_breaker.sql); true when
-- this call did (it was closed).
SELECT discern.trip_breaker($1, $2, $3, $4, $5) AS opened;

-- name: probeFailed
-- A failed probe (sql/functions/breaker_probe_failed.sql): the wait until the next one, and
-- how often the probe's job had failed as one before; no row when the breaker closed
-- meanwhile or the probe was not ours.
SELECT * FROM discern.breaker_probe_failed($1, $2, $3, $4, $5, $6, $7);

-- name: close
-- The service answered: its breaker closes (sql/functions/close_breaker.sql); true when it
-- was open.
SELECT discern.close_breaker($1, $2, $3) AS closed;

-- name: open
-- Which of the services `$1` are unavailable now, each with the seconds until its next probe
-- may go (0 when due).
SELECT backend, greatest(0, extract(epoch FROM next_probe_at - now()))::float8 AS probe_in
FROM discern.service_breakers WHERE backend = ANY($1::text[]);
