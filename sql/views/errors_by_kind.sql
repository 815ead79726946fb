-- Dead jobs by backend and error kind, with the newest occurrence and its message as an example:
-- the console's Overview and Failures pages, `discern status`, dashboards. Counted from the dead
-- jobs' own index (jobs_dead); the example is the newest message of each kind, found through the
-- same index instead of by sorting every dead job. A NULL kind has its own branch, since `=` never
-- matches NULL.
CREATE OR REPLACE VIEW discern.errors_by_kind AS
SELECT k.backend, k.error_kind, k.jobs, k.last_seen, e.last_error AS example
FROM (SELECT backend, error_kind, count(*) AS jobs, max(finished_at) AS last_seen
      FROM discern.jobs WHERE state = 'dead' GROUP BY 1, 2) k
LEFT JOIN LATERAL (
    (SELECT j.last_error FROM discern.jobs j
     WHERE j.state = 'dead' AND j.backend = k.backend AND j.error_kind = k.error_kind
     ORDER BY j.finished_at DESC LIMIT 1)
    UNION ALL
    (SELECT j.last_error FROM discern.jobs j
     WHERE j.state = 'dead' AND j.backend = k.backend AND j.error_kind IS NULL AND k.error_kind IS NULL
     ORDER BY j.finished_at DESC LIMIT 1)
    LIMIT 1) e ON true;
