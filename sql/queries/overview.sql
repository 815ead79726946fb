-- discern.queue_depth, discern.throughput_per_minute, discern.live_workers, discern.rate_limits, discern.jobs, discern.errors_by_kind, discern.unserved_backends, discern.paused_backends, discern.service_breakers: the console's first page and `discern status` as one JSON document (QueueReads.Overview).

-- name: document
-- returns: doc text?
-- The queue by backend and state (succeeded and cancelled: those that finished in the last 24
-- hours), succeeded jobs in the last full minute and the last hour, finished jobs per hour over
-- 12 hours, live workers, backends waiting with no worker (paused ones apart), rate limits and
-- what waits on them, dead jobs by kind, paused and unavailable services. Every part reads a
-- partial index or a roll-up, never every job.
SELECT json_build_object(
  'states', (SELECT coalesce(json_agg(x ORDER BY x.backend, x.state), '[]') FROM (
        SELECT backend, state, jobs FROM discern.queue_depth WHERE state IN ('available', 'running', 'dead')
        UNION ALL SELECT backend, state, sum(jobs)::bigint FROM discern.throughput_per_minute
                  WHERE state IN ('succeeded', 'cancelled') GROUP BY 1, 2) x),
  'hours', (SELECT json_agg(x ORDER BY x.hour) FROM (
        SELECT to_char(h.hour, 'YYYY-MM-DD"T"HH24:00') AS hour, coalesce(f.succeeded, 0) AS succeeded, coalesce(f.dead, 0) AS dead
        FROM generate_series(date_trunc('hour', now()) - interval '11 hours', date_trunc('hour', now()), interval '1 hour') AS h(hour)
        LEFT JOIN (
            SELECT date_trunc('hour', minute) AS hour, sum(jobs) FILTER (WHERE state = 'succeeded') AS succeeded,
                   sum(jobs) FILTER (WHERE state = 'dead') AS dead
            FROM discern.throughput_per_minute WHERE minute >= date_trunc('hour', now()) - interval '11 hours' GROUP BY 1) f USING (hour)) x),
  'workers', (SELECT coalesce(json_agg(x ORDER BY x.started_at), '[]') FROM (
        SELECT id, host, version, backends, started_at, last_heartbeat_at FROM discern.live_workers) x),
  'rate_limits', (SELECT coalesce(json_agg(x ORDER BY x.key), '[]') FROM (
        SELECT l.key, l.per_minute, l.burst, CASE WHEN l.next_at > now() THEN l.next_at END AS next_at,
               coalesce(w.waiting, 0) AS waiting_jobs
        FROM discern.rate_limits l LEFT JOIN (
            SELECT backend, count(*) AS waiting FROM discern.jobs WHERE state = 'available' AND run_at <= now()
            GROUP BY backend) w ON w.backend = split_part(l.key, ':', 1)) x),
  'dead_by_kind', (SELECT coalesce(json_agg(x ORDER BY x.jobs DESC), '[]') FROM (
        SELECT backend, error_kind, jobs, left(example, 300) AS example, last_seen FROM discern.errors_by_kind
        ORDER BY jobs DESC LIMIT 20) x),
  'succeeded_last_minute', (SELECT coalesce(sum(jobs), 0) FROM discern.throughput_per_minute
        WHERE state = 'succeeded' AND minute = date_trunc('minute', now()) - interval '1 minute'),
  'succeeded_last_hour', (SELECT coalesce(sum(jobs), 0) FROM discern.throughput_per_minute
        WHERE state = 'succeeded' AND minute > now() - interval '1 hour'),
  'unserved', (SELECT coalesce(json_agg(x ORDER BY x.backend), '[]') FROM (
        SELECT u.backend, u.waiting FROM discern.unserved_backends u
        WHERE NOT EXISTS (SELECT 1 FROM discern.paused_backends p WHERE p.backend = u.backend)) x),
  'paused', (SELECT coalesce(json_agg(x ORDER BY x.backend), '[]') FROM (
        SELECT backend, paused_by, paused_at, reason FROM discern.paused_backends) x),
  'unavailable', (SELECT coalesce(json_agg(x ORDER BY x.backend), '[]') FROM (
        SELECT b.backend, b.opened_at AS since, b.opened_by, b.error_kind, b.last_error, b.probes_failed,
               greatest(0, extract(epoch FROM b.next_probe_at - now()))::float8 AS next_probe_seconds,
               EXISTS (SELECT 1 FROM discern.jobs j WHERE j.id = b.probe_job AND j.state = 'running'
                                                    AND j.lease_owner = b.probe_owner) AS probing,
               (SELECT count(*) FROM discern.jobs j WHERE j.state = 'available' AND j.backend = b.backend) AS waiting
        FROM discern.service_breakers b) x),
  'generated_at', now()
) AS doc;
