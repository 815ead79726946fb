-- Jobs that entered a final state per minute, backend and state, over the last 24 hours: the
-- console's Overview, `discern status`, dashboards. From the roll-up plus pending events rather
-- than the jobs table, so its cost grows with time, not with the queue's size.
CREATE OR REPLACE VIEW discern.throughput_per_minute AS
SELECT minute, backend, state, sum(jobs)::bigint AS jobs
FROM (SELECT minute, backend, state, jobs FROM discern.job_minutes WHERE minute > now() - interval '24 hours'
      UNION ALL
      SELECT finished_minute, backend, state, sum(delta) FROM discern.pending_job_events
      WHERE delta > 0 AND finished_minute > now() - interval '24 hours' GROUP BY 1, 2, 3) x
GROUP BY 1, 2, 3;
