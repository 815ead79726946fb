-- discern.jobs, discern.batches: the jobs list of `discern jobs` and the console's jobs page, one keyset page at a time (QueueReads.JobFilter).

-- name: page
-- $1 state: text?
-- $2 batch: text?
-- $3 errorKind: text?
-- $4 service: text?
-- $5 file: text?
-- $6 fromDay: text?
-- $7 toDay: text?
-- $8 before: bigint?
-- $9 limit: integer
-- returns: doc text?
-- One page of the jobs discern.matching_jobs finds for the filter (`$1`...`$7`), newest
-- first, older than the job `$8` when given, `$9` at most.
-- The last error is cut to 500 characters, as on the failures page: `jobs show` has it whole.
-- One row more than the page is read, to know whether an older page holds anything.
WITH page AS (
  SELECT j.id, j.state, j.backend, j.action, b.name AS batch, j.image_path, j.attempts, j.max_attempts, j.priority,
         j.error_kind, left(j.last_error, 500) AS last_error, j.run_at, j.created_at, j.updated_at, j.finished_at
  FROM discern.matching_jobs($1, $2, $3, $4, $5, $6::date, $7::date) j LEFT JOIN discern.batches b ON b.id = j.batch_id
  WHERE ($8::bigint IS NULL OR j.id < $8)
  ORDER BY j.id DESC LIMIT $9::bigint + 1)
SELECT json_build_object(
  'items', coalesce((SELECT json_agg(x ORDER BY x.id DESC) FROM (SELECT * FROM page ORDER BY id DESC LIMIT $9::bigint) x), '[]'),
  'has_older', (SELECT count(*) FROM page) > $9::bigint) AS doc;
