-- discern.listing_checkpoints: where an unfinished listing of an s3:// prefix stopped, written in each page's enqueue transaction (JobQueue.ListingCheckpoints).

-- name: find
-- The checkpoint of listing `$1`, if one was written in the last `$2` seconds.
SELECT after_key, listed, added, extract(epoch FROM now() - updated_at)::bigint AS age_seconds
FROM discern.listing_checkpoints
WHERE listing = $1 AND updated_at > now() - make_interval(secs => $2::double precision);

-- name: save
-- Records that listing `$1` enqueued every key up to `$2`, `$3` keys listed and `$4` jobs
-- added in all.
INSERT INTO discern.listing_checkpoints (listing, after_key, listed, added)
VALUES ($1, $2, $3, $4)
ON CONFLICT (listing) DO UPDATE SET after_key = excluded.after_key, listed = excluded.listed, added = excluded.added, updated_at = now();

-- name: forget
-- The listing `$1` finished (or starts again from its first page).
DELETE FROM discern.listing_checkpoints WHERE listing = $1;
