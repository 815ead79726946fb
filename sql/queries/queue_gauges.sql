-- discern.jobs, discern.live_workers, discern.service_breakers: the queue gauges `discern monitor` exports to Prometheus, with the night's forecast (QueueReads.QueueGauges).

-- name: document
-- $1 services: text[]
-- $2 until: timestamptz?
-- returns: doc text?
-- Per service of `$1`, at zero when idle: what waits, runs and finished in the last 10
-- minutes, who serves it and whether it is unavailable; the forecast up to `$2` (nil: the
-- forecast alone), and how long the oldest snapshot has held back vacuum. Reads only the
-- claimable and running partial indexes, the finished_at index for the last 10 minutes and
-- the worker registry: cheap on a table of millions of finished jobs.
WITH waiting AS (
    SELECT backend, count(*) FILTER (WHERE run_at <= now()) AS waiting, count(*) FILTER (WHERE run_at > now()) AS scheduled,
           extract(epoch FROM now() - min(run_at) FILTER (WHERE run_at <= now())) AS oldest
    FROM discern.jobs WHERE state = 'available' GROUP BY backend),
running AS (SELECT backend, count(*) AS running FROM discern.jobs WHERE state = 'running' GROUP BY backend),
recent AS (
    SELECT backend, count(*) FILTER (WHERE state = 'succeeded') AS succeeded, count(*) FILTER (WHERE state = 'dead') AS dead
    FROM discern.jobs WHERE finished_at > now() - interval '10 minutes' GROUP BY backend),
live AS (SELECT unnest(backends) AS backend, count(*) AS workers FROM discern.live_workers GROUP BY 1),
down AS (SELECT backend, extract(epoch FROM now() - opened_at) AS seconds, probes_failed FROM discern.service_breakers)
SELECT jsonb_build_object(
  'queues', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'backend', b.backend, 'waiting', coalesce(w.waiting, 0), 'scheduled', coalesce(w.scheduled, 0),
        'running', coalesce(r.running, 0), 'oldest_waiting_seconds', coalesce(w.oldest, 0),
        'succeeded_recently', coalesce(f.succeeded, 0), 'dead_recently', coalesce(f.dead, 0),
        'live_workers', coalesce(l.workers, 0), 'unavailable_seconds', d.seconds,
        'probes_failed', coalesce(d.probes_failed, 0)) ORDER BY b.backend), '[]')
      FROM unnest($1::text[]) AS b(backend)
      LEFT JOIN waiting w USING (backend) LEFT JOIN running r USING (backend)
      LEFT JOIN recent f USING (backend) LEFT JOIN live l USING (backend) LEFT JOIN down d USING (backend)),
  'forecasts', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'backend', p.backend, 'finish_early_seconds', extract(epoch FROM p.finish_early - now()),
        'finish_late_seconds', extract(epoch FROM p.finish_late - now()), 'will_not_finish', p.will_not_finish,
        'cap_used_ratio', p.cap_used / nullif(p.cap_calls, 0)) ORDER BY p.backend), '[]')
      FROM discern.plan_until($2::timestamptz) p),
  'oldest_snapshot_seconds', discern.oldest_snapshot_seconds()) AS doc;
