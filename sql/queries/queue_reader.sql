-- discern.results, discern.jobs: the read model's own statements, the thumbnails' files and the health check (QueueReads.QueueReader).

-- name: canReadRawAnswers
-- returns: ok boolean?
-- Whether this role may read the services' raw answers (the reader role may not).
SELECT has_column_privilege('discern.results', 'raw_response', 'SELECT') AS ok;

-- name: resultImagePath
-- $1 result: bigint
-- returns: image_path text
-- The original file of the result `$1`, for its thumbnail.
SELECT image_path FROM discern.results WHERE id = $1;

-- name: ping
-- returns: nothing
-- PostgreSQL answers (the console's /healthz).
SELECT 1;

-- name: jobImagePath
-- $1 job: bigint
-- returns: image_path text
-- The file of the job `$1`, for its thumbnail.
SELECT image_path FROM discern.jobs WHERE id = $1;
