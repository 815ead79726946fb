-- discern.workers, discern.jobs: the console's /workers page, the workers of the last day and what they hold (QueueReads.WorkerList).

-- name: document
-- returns: doc text?
-- Each worker of the last day, live or stopped, with the running jobs leased to it and
-- since when, 200 at most: from discern.workers and the running jobs' leases, never every job.
SELECT json_build_object('workers', coalesce(json_agg(x ORDER BY x.live DESC, x.started_at DESC), '[]')) AS doc FROM (
  SELECT w.id, w.host, w.pid, w.version, w.backends, w.started_at, w.last_heartbeat_at, w.stopped_at,
         (w.stopped_at IS NULL AND w.last_heartbeat_at > now() - make_interval(secs => 3 * w.heartbeat_seconds)) AS live,
         coalesce(h.jobs, 0) AS jobs_held, h.oldest AS holding_since, w.jobs_finished, w.jobs_per_minute
  FROM discern.workers w
  LEFT JOIN (SELECT lease_owner, count(*) AS jobs, min(updated_at) AS oldest FROM discern.jobs
             WHERE state = 'running' GROUP BY lease_owner) h ON h.lease_owner = w.id
  WHERE w.stopped_at IS NULL OR w.stopped_at > now() - interval '24 hours'
  ORDER BY w.started_at DESC LIMIT 200) x;
