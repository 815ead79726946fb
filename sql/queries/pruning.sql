-- discern.jobs, discern.results: deleting what has finished, one chunk of at most `$2` rows older than `$1` a call (JobQueue.Pruning).

-- name: jobs
-- Finished jobs (succeeded, dead, cancelled); their results are kept (sql/functions/prune.sql).
SELECT discern.prune($1::interval, $2) AS deleted;

-- name: results
-- Results, with their entities and corrections (sql/functions/prune_results.sql).
SELECT discern.prune_results($1::interval, $2) AS deleted;
