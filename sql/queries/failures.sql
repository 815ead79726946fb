-- discern.errors_by_kind, discern.jobs, discern.batches: the failures page, dead jobs by kind, the newest dead and the jobs failing now (QueueReads.Failures).

-- name: document
-- returns: doc text?
-- Dead jobs grouped by error kind with an example message, the 50 newest dead jobs, and
-- the 50 jobs failing now (waiting for a retry after an error); messages cut to 500 characters.
SELECT json_build_object(
  'kinds', (SELECT coalesce(json_agg(x ORDER BY x.jobs DESC), '[]') FROM (
        SELECT backend, error_kind, jobs, left(example, 500) AS example, last_seen FROM discern.errors_by_kind) x),
  'recent_dead', (SELECT coalesce(json_agg(x), '[]') FROM (
        SELECT j.id, j.backend, b.name AS batch, j.image_path, j.attempts, j.max_attempts, j.error_kind,
               left(j.last_error, 500) AS last_error, j.finished_at AS at
        FROM discern.jobs j LEFT JOIN discern.batches b ON b.id = j.batch_id
        WHERE j.state = 'dead' ORDER BY j.finished_at DESC NULLS LAST LIMIT 50) x),
  'failing', (SELECT coalesce(json_agg(x), '[]') FROM (
        SELECT j.id, j.backend, b.name AS batch, j.image_path, j.attempts, j.max_attempts, j.error_kind,
               left(j.last_error, 500) AS last_error, j.run_at AS at
        FROM discern.jobs j LEFT JOIN discern.batches b ON b.id = j.batch_id
        WHERE j.state = 'available' AND j.error_kind IS NOT NULL ORDER BY j.run_at LIMIT 50) x)
) AS doc;
