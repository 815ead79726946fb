-- discern schema, version 31: a batch that ends tells people (docs/operations.md, "When the night
-- is done"). The outbox, in three steps, each durable:
--
-- pending_batch_checks: the batches of jobs that reached a final state (or were deleted), appended
--   by the jobs' own statement (discern.note_jobs_changed), so the check is committed with the
--   change that may end the batch, or not at all.
-- batch_events: one row per end of a batch (its generation: a batch retried or added to and
--   ended again is a new end), with the report that is sent, fixed when it ended. Written by
--   discern.announce_batches from the checks, once a batch has no job waiting or running and
--   none finished for the settle time; its unique key makes a second writer a no-op.
-- notification_deliveries: one row per event and destination, delivered, retried with backoff or
--   given up; a destination is a name (host and a hash of the URL: a Slack or Teams URL is a
--   credential), registered the first time a worker configured with it starts. A destination
--   receives the events that happen after it was first seen, never the history before.
CREATE TABLE discern.pending_batch_checks (
    batch_id bigint NOT NULL
);

CREATE TABLE discern.batch_events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    batch_id bigint NOT NULL REFERENCES discern.batches(id) ON DELETE CASCADE,
    generation bigint NOT NULL,
    ended_at timestamptz,
    report jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (batch_id, generation)
);

CREATE TABLE discern.notification_destinations (
    name text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 300),
    first_seen_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE discern.notification_deliveries (
    event_id bigint NOT NULL REFERENCES discern.batch_events(id) ON DELETE CASCADE,
    destination text NOT NULL REFERENCES discern.notification_destinations(name) ON DELETE CASCADE,
    state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_status integer,
    last_error text CHECK (length(last_error) <= 1000),
    delivered_at timestamptz,
    PRIMARY KEY (event_id, destination)
);

CREATE INDEX notification_deliveries_due ON discern.notification_deliveries (next_attempt_at) WHERE state = 'pending';

-- Batches that had ended before notifications existed are not announced now: each gets its event,
-- with no delivery.
INSERT INTO discern.batch_events (batch_id, generation, ended_at, report)
SELECT b.id, b.generation, max(j.finished_at), '{"before_notifications": true}'::jsonb
FROM discern.batches b JOIN discern.jobs j ON j.batch_id = b.id
GROUP BY b.id, b.generation
HAVING count(*) FILTER (WHERE j.state IN ('available', 'running')) = 0;
