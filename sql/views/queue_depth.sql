-- Jobs by backend and state, with the oldest run_at of available jobs: `discern status`, the
-- console's Overview, dashboards. Waiting and running jobs are counted through their partial
-- indexes; finished ones come from the roll-up (job_state_counts plus pending events), since
-- counting finished jobs took 2.5 s at 20 million and grows with the table.
CREATE OR REPLACE VIEW discern.queue_depth AS
SELECT backend, state, sum(jobs)::bigint AS jobs, min(oldest_run_at) AS oldest_run_at
FROM (-- The state as a constant, not the column: the claimable index (backend, ..., run_at)
      -- then answers from its entries alone.
      SELECT backend, 'available'::text AS state, count(*) AS jobs, min(run_at) AS oldest_run_at
      FROM discern.jobs WHERE state = 'available' GROUP BY 1
      UNION ALL SELECT backend, 'running'::text, count(*), NULL FROM discern.jobs WHERE state = 'running' GROUP BY 1
      UNION ALL SELECT backend, state, jobs, NULL FROM discern.job_state_counts
      UNION ALL SELECT backend, state, sum(delta), NULL FROM discern.pending_job_events GROUP BY 1, 2) x
GROUP BY backend, state
HAVING sum(jobs) <> 0;
