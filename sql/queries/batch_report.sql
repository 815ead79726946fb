-- discern.batches, discern.jobs, discern.results_per_batch, discern.results: what happened to one batch, as one JSON document (QueueReads.BatchReport).

-- name: document
-- $1 name: text
-- returns: doc text?
-- The batch named `$1`, in one document: the jobs' states per backend (one pass over the
-- batch's index), the failed attempts (only jobs that failed along the way have a history: a
-- small partial index), the results' figures from their per-batch roll-up (results outlive
-- pruned jobs; a 500,000-result batch is a few rows there), the commonest errors, and the
-- near-duplicates with the calls a job takes (the batch's own, else its service's over the last
-- 7 days). Results whose job was pruned count as finished at their creation. No row when there
-- is no batch of that name.
WITH b AS (SELECT id, name, created_at FROM discern.batches WHERE name = $1),
s AS (SELECT backend, count(*) AS jobs, count(*) FILTER (WHERE state = 'succeeded') AS succeeded,
             count(*) FILTER (WHERE state = 'dead') AS dead, count(*) FILTER (WHERE state = 'cancelled') AS cancelled,
             count(*) FILTER (WHERE state IN ('available', 'running')) AS pending,
             count(finished_at) AS finished, min(finished_at) AS first_finished, max(finished_at) AS last_finished
      FROM discern.jobs WHERE batch_id = (SELECT id FROM b) GROUP BY backend),
f AS (SELECT backend, sum(jsonb_array_length(error_history))::bigint AS failed_attempts
      FROM discern.jobs WHERE batch_id = (SELECT id FROM b) AND error_history <> '[]'::jsonb GROUP BY backend),
r AS (SELECT backend, sum(results)::bigint AS results, sum(api_calls)::bigint AS api_calls,
             sum(original_bytes)::bigint AS original_bytes, sum(sent_bytes)::bigint AS sent_bytes,
             sum(passed_through)::bigint AS passed_through,
             sum(prepare_ms_sum) / sum(results) AS prepare_ms, sum(analyze_ms_sum) / sum(results) AS analyze_ms,
             jsonb_object_agg(outcome, results) AS outcomes
      FROM discern.results_per_batch WHERE batch_id = (SELECT id FROM b) GROUP BY backend),
per AS (SELECT coalesce(s.backend, r.backend) AS backend, coalesce(s.jobs, 0) AS jobs,
               greatest(coalesce(s.succeeded, 0), coalesce(r.results, 0)) AS succeeded, coalesce(s.dead, 0) AS dead,
               coalesce(s.cancelled, 0) AS cancelled, coalesce(s.pending, 0) AS pending,
               coalesce(f.failed_attempts, 0) AS failed_attempts, coalesce(r.api_calls, 0) AS api_calls,
               coalesce(r.original_bytes, 0) AS original_bytes, coalesce(r.sent_bytes, 0) AS sent_bytes,
               coalesce(r.passed_through, 0) AS passed_through, r.prepare_ms, r.analyze_ms,
               coalesce(r.outcomes, '{}') AS outcomes
        FROM s FULL JOIN r ON r.backend = s.backend LEFT JOIN f ON f.backend = coalesce(s.backend, r.backend)),
pruned AS (SELECT count(*) AS n, min(created_at) AS first, max(created_at) AS last
           FROM discern.results WHERE batch_id = (SELECT id FROM b) AND job_id IS NULL),
fin AS (SELECT coalesce((SELECT sum(finished) FROM s), 0) + (SELECT n FROM pruned) AS n,
               least((SELECT min(first_finished) FROM s), (SELECT first FROM pruned)) AS first,
               greatest((SELECT max(last_finished) FROM s), (SELECT last FROM pruned)) AS last),
near AS (SELECT count(*) AS n, count(*) FILTER (WHERE j.state IN ('available', 'cancelled')) AS left_out,
                coalesce((SELECT round(avg(x.api_calls)) FROM discern.results x
                          WHERE x.batch_id = (SELECT id FROM b) AND x.api_calls > 0),
                         (SELECT round(avg(x.api_calls)) FROM discern.results x
                          WHERE x.backend = min(j.backend) AND x.api_calls > 0 AND x.created_at > now() - interval '7 days'), 1)::bigint AS per_job
         FROM discern.jobs j WHERE j.batch_id = (SELECT id FROM b) AND j.near_duplicate_of IS NOT NULL)
SELECT jsonb_build_object(
  'batch', b.name, 'created_at', to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
  'backends', coalesce((SELECT jsonb_agg(jsonb_build_object(
        'backend', p.backend, 'jobs', greatest(p.jobs, p.succeeded + p.dead + p.cancelled + p.pending),
        'succeeded', p.succeeded, 'dead', p.dead, 'cancelled', p.cancelled, 'pending', p.pending,
        'failed_attempts', p.failed_attempts, 'api_calls', p.api_calls, 'original_bytes', p.original_bytes,
        'sent_bytes', p.sent_bytes, 'passed_through', p.passed_through, 'average_prepare_milliseconds', p.prepare_ms,
        'average_analyze_milliseconds', p.analyze_ms, 'outcomes', p.outcomes) ORDER BY p.backend) FROM per p), '[]'),
  'top_errors', coalesce((SELECT jsonb_agg(e ORDER BY e.jobs DESC, e.kind) FROM (
        SELECT backend, coalesce(error_kind, 'unknown') AS kind, count(*) AS jobs,
               left(coalesce((array_agg(last_error ORDER BY finished_at DESC))[1], ''), 200) AS example
        FROM discern.jobs WHERE batch_id = b.id AND state = 'dead' GROUP BY 1, 2 ORDER BY 3 DESC, 2 LIMIT 10) e), '[]'),
  'elapsed_seconds', extract(epoch FROM fin.last - b.created_at),
  'jobs_per_minute', CASE WHEN fin.last > fin.first THEN fin.n / (extract(epoch FROM fin.last - fin.first) / 60) END,
  'near_duplicates', near.n, 'near_duplicates_not_analysed', near.left_out,
  'calls_saved', near.left_out * greatest(1, near.per_job)) AS doc
FROM b, fin, near;
