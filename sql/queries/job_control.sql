-- discern.jobs, discern.operator_actions: operators' hands on jobs chosen by id or by filters (discern.matching_jobs, as the jobs list), through discern.retry, discern.cancel and discern.delete_jobs (JobQueue.JobControl).
-- `apply` takes the selection as `$1` ids (NULL: by filters only), `$2` batch,
-- `$3` error kind, `$4` backend, `$5` state, `$6` file, `$7` and `$8` days; then `$9` actor,
-- `$10` action, `$11` scope, `$12` at most this many jobs (NULL: all), `$13` whether to record it.
-- It changes the chosen jobs in one statement and records them in discern.operator_actions in the
-- same statement when it changed any; it returns how many changed.

-- name: apply
-- $1 ids: bigint[]?
-- $2 batch: text?
-- $3 errorKind: text?
-- $4 service: text?
-- $5 state: text?
-- $6 file: text?
-- $7 fromDay: text?
-- $8 toDay: text?
-- $9 actor: text
-- $10 action: text
-- $11 scope: text
-- $12 limit: integer?
-- $13 logged: boolean
-- returns: n integer?
-- Retries, cancels or deletes the selection's jobs, as `$10` says: retry puts dead jobs back
-- with a fresh set of attempts (a cancelled job too, when named by id); cancel ends the jobs
-- that have not finished; delete removes the jobs that are over without a result (dead or
-- cancelled). Only the action's own function runs (CASE evaluates the branch it takes).
WITH chosen AS (SELECT coalesce(array_agg(c.id), '{}') AS ids FROM (
                    SELECT j.id FROM discern.matching_jobs($5, $2, $3, $4, $6, $7::date, $8::date) j
                    WHERE ($1::bigint[] IS NULL OR j.id = ANY($1))
                      AND CASE $10::text
                              WHEN 'retry' THEN j.state = 'dead' OR ($1::bigint[] IS NOT NULL AND j.state = 'cancelled')
                              WHEN 'cancel' THEN j.state IN ('available', 'running')
                              WHEN 'delete' THEN j.state IN ('dead', 'cancelled') END
                    ORDER BY j.id LIMIT $12) c),
done AS (SELECT CASE $10::text WHEN 'retry' THEN discern.retry(ids)
                               WHEN 'cancel' THEN discern.cancel(ids)
                               WHEN 'delete' THEN discern.delete_jobs(ids) END AS n, ids FROM chosen),
logged AS (
    INSERT INTO discern.operator_actions (actor, action, scope, jobs, job_ids, batch_id)
    SELECT $9, $10, $11, n, CASE WHEN cardinality(ids) <= {{named_jobs}} THEN ids END,
           (SELECT id FROM discern.batches WHERE name = $2)
    FROM done WHERE n > 0 AND $13)
SELECT n FROM done;

-- name: statesMatching
-- $1 ids: bigint[]?
-- $2 batch: text?
-- $3 errorKind: text?
-- $4 service: text?
-- $5 state: text?
-- $6 file: text?
-- $7 fromDay: text?
-- $8 toDay: text?
-- returns: state text, n bigint
-- How many jobs of the selection (`$1` to `$8`, as the head of this file says) are in each state.
SELECT j.state, count(*) AS n FROM discern.matching_jobs($5, $2, $3, $4, $6, $7::date, $8::date) j
WHERE ($1::bigint[] IS NULL OR j.id = ANY($1)) GROUP BY j.state;
