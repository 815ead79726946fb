-- discern.jobs, discern.results: re-analysis and its forecast (JobQueue.Reanalysis, `discern reanalyse`).

-- name: start
-- $1 name: text
-- $2 service: text
-- $3 action: text?
-- $4 batch: text?
-- $5 since: timestamptz?
-- $6 before: timestamptz?
-- $7 model: text?
-- $8 modelVersion: text?
-- $9 serviceHost: text?
-- $10 discernVersion: text?
-- $11 category: text?
-- $12 confidenceMin: float8?
-- $13 confidenceMax: float8?
-- $14 provenance: jsonb?
-- $15 atMost: integer?
-- $16 priority: integer
-- returns: batch text, selected integer, enqueued integer, measured integer, measured_calls bigint
-- Enqueues the selection through discern.reanalyse (sql/functions/reanalyse.sql): `$1` name,
-- `$2` service, `$3` action, `$4` batch, `$5`..`$6` created in [since, before), `$7` model,
-- `$8` model version, `$9` service host, `$10` discern release, `$11` category, `$12`..`$13`
-- a confidence band, `$14` provenance (jsonb the result's contains), `$15` at most this many
-- photos, `$16` priority.
SELECT r.batch, r.selected, r.enqueued, r.measured, r.measured_calls
FROM discern.reanalyse(name => $1, backend => $2, action => $3, from_batch => $4, since => $5::timestamptz,
                       before => $6::timestamptz, model => $7, model_version => $8, service_host => $9,
                       discern_version => $10, category => $11, confidence_min => $12::float8,
                       confidence_max => $13::float8, provenance => $14::jsonb, at_most => $15::integer,
                       priority => $16::smallint) r;

-- name: forecast
-- $1 service: text
-- $2 batch: text
-- returns: ahead bigint, calls_per_job float8?, attempts_per_job float8?, per_minute float8?, constraint_text text?, finish_early text?, finish_late text?, price_per_call float8?, cap_calls float8?, cap_period text?, cap_used bigint?
-- The service's plan with the re-analysis enqueued (run in the transaction that enqueued it,
-- before it commits or is rolled back): what a job took lately in calls and attempts, the
-- pace, when the service's queue (the re-analysis last) is done, the price and the spend cap;
-- `ahead`: the service's jobs waiting or running outside the re-analysis's batch `$2`.
SELECT (SELECT count(*) FROM discern.jobs j WHERE j.backend = $1 AND j.state = 'available'
          AND j.batch_id IS DISTINCT FROM (SELECT b.id FROM discern.batches b WHERE b.name = $2))
       + (SELECT count(*) FROM discern.jobs j WHERE j.backend = $1 AND j.state = 'running'
          AND j.batch_id IS DISTINCT FROM (SELECT b.id FROM discern.batches b WHERE b.name = $2)) AS ahead,
       p.calls_per_job, p.attempts_per_job, p.calls_per_job, p.attempts_per_job, p.per_minute, p.constraint_text,
       to_char(p.finish_early AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS finish_early,
       to_char(p.finish_late AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS finish_late, p.price_per_call, p.cap_calls, p.cap_period, p.cap_used
FROM discern.plan_until(NULL) p
WHERE p.backend = $1;
