-- discern_enqueue (a temporary table), discern.batches: staging the files of one enqueue, which `Queries.Jobs.enqueueStaged` then moves into discern.jobs (JobQueue.JobQueue).

-- name: createStaging
-- The table COPY streams one enqueue's files into, gone when its transaction ends.
CREATE TEMP TABLE discern_enqueue (image_path text NOT NULL, unique_key text, perceptual_hash bigint, near_duplicate_of text,
                                   traceparent text)
ON COMMIT DROP;

-- name: copyStaging
-- Streams the files into `discern_enqueue`, one row each.
COPY discern_enqueue (image_path, unique_key, perceptual_hash, near_duplicate_of, traceparent) FROM STDIN;

-- name: batchID
-- $1 name: text
-- returns: id bigint?
-- The id of the batch named `$1`, made when it is new (sql/functions/batch_id.sql).
SELECT discern.batch_id($1) AS id;
