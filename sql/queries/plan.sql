-- discern.jobs, discern.batches: the night's plan per service, from discern.plan_until, with the jobs left over when the window closes (QueueReads.Plan).

-- name: document
-- $1 until: timestamptz?
-- returns: doc text?
-- The plan up to `$1` (nil: the forecast alone): discern.plan_until's figures per service,
-- each with the jobs left over when the window closes, by batch and priority.
-- Running jobs finish first; waiting ones in the order claims take them (priority, then
-- run_at, then id) fill what is left of the window. Twenty groups at most per service.
WITH p AS (SELECT * FROM discern.plan_until($1::timestamptz))
SELECT jsonb_build_object(
  'generated_at', now(), 'until', $1::timestamptz,
  'services', coalesce((SELECT jsonb_agg(to_jsonb(p) || jsonb_build_object('left_over',
      CASE WHEN coalesce(p.will_not_finish, 0) = 0 THEN '[]'::jsonb ELSE (
        SELECT coalesce(jsonb_agg(jsonb_build_object('batch', x.batch, 'priority', x.priority, 'jobs', x.jobs, 'oldest', x.oldest)
                                  ORDER BY x.priority, x.oldest), '[]')
        FROM (SELECT b.name AS batch, o.priority, count(*) AS jobs, min(o.created_at) AS oldest
              FROM (SELECT j.batch_id, j.priority, j.created_at FROM discern.jobs j
                    WHERE j.backend = p.backend AND j.state = 'available' AND j.run_at <= coalesce($1::timestamptz, 'infinity')
                    ORDER BY j.priority, j.run_at, j.id OFFSET greatest(0, coalesce(p.fits, 0) - p.running)) o
              LEFT JOIN discern.batches b ON b.id = o.batch_id
              GROUP BY 1, 2 ORDER BY 2, 4 LIMIT 20) x) END)
    ORDER BY p.backend) FROM p), '[]')) AS doc;
