-- discern schema, version 33: a job carries the W3C traceparent of the span that enqueued it
-- (docs/tracing.md), written by `discern enqueue` while tracing is on, or by whoever inserts the
-- job in SQL. A worker continues that trace on the job's first attempt and links to it from a
-- retry's own. Only the shape is checked (version-traceid-parentid-flags, lower-case hex): a
-- malformed value is refused with the constraint's name rather than silently dropped later.
-- NOT VALID: existing rows are all NULL, and the check holds for every row written from now on
-- without a scan of the table under its lock.
ALTER TABLE discern.jobs ADD COLUMN traceparent text;
ALTER TABLE discern.jobs ADD CONSTRAINT jobs_traceparent_w3c
    CHECK (traceparent ~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$') NOT VALID;
