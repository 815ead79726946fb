-- discern.jobs, discern.results: deleting what has finished, one chunk of at most `$2` rows older than `$1` a call (JobQueue.Pruning).

-- name: jobs
-- $1 olderThan: text
-- $2 chunk: integer
-- returns: deleted integer?
-- Finished jobs (succeeded, dead, cancelled); their results are kept (sql/functions/prune.sql).
SELECT discern.prune($1::interval, $2) AS deleted;

-- name: results
-- $1 olderThan: text
-- $2 chunk: integer
-- returns: deleted integer?
-- Results, with their entities and corrections (sql/functions/prune_results.sql).
SELECT discern.prune_results($1::interval, $2) AS deleted;

-- name: retention
-- $1 services: text[]
-- returns: service text, raw_response_days integer?, results_days integer?
-- Each service's retention (discern.retention): its own row, else the `*` row's.
SELECT s.backend AS service, coalesce(own.raw_response_days, star.raw_response_days) AS raw_response_days,
       coalesce(own.results_days, star.results_days) AS results_days
FROM unnest($1::text[]) AS s(backend)
LEFT JOIN discern.retention own ON own.backend = s.backend
LEFT JOIN discern.retention star ON star.backend = '*'
ORDER BY s.backend;

-- name: serviceChunk
-- $1 part: text
-- $2 service: text
-- $3 olderThan: text
-- $4 chunk: integer
-- returns: changed integer?
-- One chunk of a service's retention: raw answers dropped or results deleted (sql/functions/retention_prune.sql).
SELECT discern.retention_prune($1, $2, $3::interval, $4) AS changed;
