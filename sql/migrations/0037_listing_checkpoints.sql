-- discern schema, version 37: where an interrupted `discern enqueue s3://bucket/prefix/` stopped.
-- Each page of the listing is enqueued in a transaction that also records the page's last key
-- here, so a rerun of the same enqueue (a CronJob's retry, an operator's) lists on from that
-- key instead of from the first page, and a finished one deletes its row. A new table: it runs
-- beside the previous release's workers, which never read it.
CREATE TABLE discern.listing_checkpoints (
    listing text PRIMARY KEY CHECK (length(listing) BETWEEN 1 AND 2000),
    after_key text NOT NULL CHECK (length(after_key) BETWEEN 1 AND 1024),
    listed bigint NOT NULL DEFAULT 0 CHECK (listed >= 0),
    added bigint NOT NULL DEFAULT 0 CHECK (added >= 0),
    started_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE discern.listing_checkpoints IS
    'Where an unfinished discern enqueue of an s3:// prefix stopped: a rerun of the same enqueue (same prefix, service, action, params, batch and filters) lists on after after_key. Deleted when the listing finishes.';
COMMENT ON COLUMN discern.listing_checkpoints.listing IS
    'The prefix listed (s3://bucket/prefix) and a digest of what the enqueue takes from it.';
COMMENT ON COLUMN discern.listing_checkpoints.after_key IS
    'The last key of the last page enqueued: a resumed listing starts after it (ListObjectsV2 start-after).';
