-- Jobs that entered a final state per hour, backend and state, over the last 30 days, from the
-- per-minute roll-up plus pending events. A job that died and succeeded after a retry counts in
-- both hours.
CREATE OR REPLACE VIEW discern.throughput_per_hour AS
SELECT date_trunc('hour', minute) AS hour, backend, state, sum(jobs)::bigint AS jobs
FROM (SELECT minute, backend, state, jobs FROM discern.job_minutes WHERE minute > now() - interval '30 days'
      UNION ALL
      SELECT finished_minute, backend, state, sum(delta) FROM discern.pending_job_events
      WHERE delta > 0 AND finished_minute > now() - interval '30 days' GROUP BY 1, 2, 3) x
GROUP BY 1, 2, 3;
