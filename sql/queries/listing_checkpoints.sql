-- discern.listing_checkpoints: where an unfinished listing of an s3:// prefix stopped, written in each page's enqueue transaction (JobQueue.ListingCheckpoints).

-- name: find
-- $1 listing: text
-- $2 keptSeconds: float8
-- returns: after_key text, listed integer, added integer, age_seconds bigint
-- The checkpoint of listing `$1`, if one was written in the last `$2` seconds.
SELECT after_key, listed, added, extract(epoch FROM now() - updated_at)::bigint AS age_seconds
FROM discern.listing_checkpoints
WHERE listing = $1 AND updated_at > now() - make_interval(secs => $2::double precision);

-- name: save
-- $1 listing: text
-- $2 afterKey: text
-- $3 listed: integer
-- $4 added: integer
-- Records that listing `$1` enqueued every key up to `$2`, `$3` keys listed and `$4` jobs
-- added in all.
INSERT INTO discern.listing_checkpoints (listing, after_key, listed, added)
VALUES ($1, $2, $3, $4)
ON CONFLICT (listing) DO UPDATE SET after_key = excluded.after_key, listed = excluded.listed, added = excluded.added, updated_at = now();

-- name: forget
-- $1 listing: text
-- The listing `$1` finished (or starts again from its first page).
DELETE FROM discern.listing_checkpoints WHERE listing = $1;
