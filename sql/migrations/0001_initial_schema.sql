-- discern schema, version 1: batches, jobs, results and the SQL interface for operations.
-- Applied once by `discern migrate`, inside a transaction, under an advisory lock.

CREATE SCHEMA IF NOT EXISTS discern;

-- A named group of jobs, usually one night's run.
CREATE TABLE discern.batches (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE discern.jobs (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    batch_id         bigint REFERENCES discern.batches(id) ON DELETE SET NULL,
    backend          text NOT NULL DEFAULT 'discerner'
                     CHECK (backend IN ('discerner', 'ooto', 'azure-face', 'landmark', 'unissey')),
    action           text NOT NULL DEFAULT 'analyze' CHECK (length(action) BETWEEN 1 AND 50),
    image_path       text NOT NULL CHECK (length(image_path) BETWEEN 1 AND 4096),
    params           jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(params) = 'object'),
    state            text NOT NULL DEFAULT 'available'
                     CHECK (state IN ('available', 'running', 'succeeded', 'dead', 'cancelled')),
    priority         smallint NOT NULL DEFAULT 0,
    run_at           timestamptz NOT NULL DEFAULT now(),
    attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts     integer NOT NULL DEFAULT 5 CHECK (max_attempts BETWEEN 1 AND 100),
    lease_owner      text,
    lease_expires_at timestamptz,
    error_kind       text,
    last_error       text,
    -- One entry per failed attempt: {"attempt", "at", "kind", "error"}.
    error_history    jsonb NOT NULL DEFAULT '[]'::jsonb,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz,
    CONSTRAINT running_has_lease CHECK (state <> 'running' OR (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL))
);

-- Claims read only this small partial index, however many finished jobs the table holds.
CREATE INDEX jobs_claimable ON discern.jobs (priority, run_at, id) WHERE state = 'available';
-- Rescuing expired leases reads only running jobs.
CREATE INDEX jobs_running_leases ON discern.jobs (lease_expires_at) WHERE state = 'running';
CREATE INDEX jobs_batch ON discern.jobs (batch_id, state);

-- Exactly one row per succeeded job. Results outlive pruned jobs (job_id becomes NULL).
CREATE TABLE discern.results (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id            bigint UNIQUE REFERENCES discern.jobs(id) ON DELETE SET NULL,
    batch_id          bigint REFERENCES discern.batches(id) ON DELETE SET NULL,
    image_path        text NOT NULL,
    backend           text NOT NULL,
    action            text NOT NULL,
    -- The common core every dashboard reads.
    category          text,
    subcategory       text,
    operator          text,
    fleet_id          text,
    license_plate     text,
    confidence        double precision CHECK (confidence IS NULL OR confidence BETWEEN 0 AND 1),
    text_identifiers  text[] NOT NULL DEFAULT '{}',
    description       text,
    raw_response      jsonb NOT NULL,
    -- What image preparation did.
    original_bytes    bigint NOT NULL,
    original_width    integer NOT NULL,
    original_height   integer NOT NULL,
    original_format   text NOT NULL,
    sent_bytes        bigint NOT NULL,
    sent_width        integer NOT NULL,
    sent_height       integer NOT NULL,
    sent_format       text NOT NULL,
    jpeg_quality      smallint,
    encode_count      smallint NOT NULL DEFAULT 0,
    passed_through    boolean NOT NULL,
    prepare_ms        double precision NOT NULL,
    analyze_ms        double precision NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX results_image_path ON discern.results (image_path, created_at DESC);
CREATE INDEX results_created_at ON discern.results (created_at);

-- The id of the named batch, created if new; NULL for a NULL name.
CREATE FUNCTION discern.batch_id(batch text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    found bigint;
BEGIN
    IF batch IS NULL THEN
        RETURN NULL;
    END IF;
    INSERT INTO discern.batches (name) VALUES (batch) ON CONFLICT (name) DO NOTHING;
    SELECT b.id INTO found FROM discern.batches b WHERE b.name = batch;
    RETURN found;
END;
$$;

-- Enqueue one image. Operations call this from psql; a plain INSERT into discern.jobs works too.
CREATE FUNCTION discern.enqueue(
    image_path   text,
    backend      text DEFAULT 'discerner',
    action       text DEFAULT 'analyze',
    params       jsonb DEFAULT '{}'::jsonb,
    priority     smallint DEFAULT 0,
    run_at       timestamptz DEFAULT now(),
    max_attempts integer DEFAULT 5,
    batch        text DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    new_id bigint;
BEGIN
    INSERT INTO discern.jobs (batch_id, backend, action, image_path, params, priority, run_at, max_attempts)
    VALUES (discern.batch_id(enqueue.batch), enqueue.backend, enqueue.action, enqueue.image_path, enqueue.params,
            enqueue.priority, enqueue.run_at, enqueue.max_attempts)
    RETURNING id INTO new_id;
    RETURN new_id;
END;
$$;

-- Jobs by state and backend, for `discern status` and dashboards.
CREATE VIEW discern.queue_depth AS
SELECT backend, state, count(*) AS jobs, min(run_at) FILTER (WHERE state = 'available') AS oldest_run_at
FROM discern.jobs
GROUP BY backend, state;

-- Put dead or cancelled jobs back in the queue with a fresh set of attempts. The history of
-- earlier attempts stays in error_history. Returns how many jobs were re-queued.
CREATE FUNCTION discern.retry(job_ids bigint[]) RETURNS integer
LANGUAGE sql AS $$
    WITH requeued AS (
        UPDATE discern.jobs
        SET state = 'available', attempts = 0, run_at = now(), finished_at = NULL,
            error_kind = NULL, last_error = NULL, updated_at = now()
        WHERE id = ANY(job_ids) AND state IN ('dead', 'cancelled')
        RETURNING 1
    )
    SELECT count(*)::integer FROM requeued;
$$;

-- Cancel jobs that have not finished. A running job's worker finds its lease gone and
-- discards its work. Returns how many jobs were cancelled.
CREATE FUNCTION discern.cancel(job_ids bigint[]) RETURNS integer
LANGUAGE sql AS $$
    WITH cancelled AS (
        UPDATE discern.jobs
        SET state = 'cancelled', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id = ANY(job_ids) AND state IN ('available', 'running')
        RETURNING 1
    )
    SELECT count(*)::integer FROM cancelled;
$$;
