-- discern schema, version 2: wake-ups, unique jobs, bulk enqueue, retention and the views
-- operations and dashboards read.

-- Workers LISTEN on 'discern_jobs'. One notification per statement, so a bulk insert of a
-- million rows sends one, not a million; a plain INSERT from psql wakes workers too.
CREATE FUNCTION discern.notify_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('discern_jobs', '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER jobs_notify_insert AFTER INSERT ON discern.jobs
FOR EACH STATEMENT EXECUTE FUNCTION discern.notify_jobs();

-- A job made claimable by an UPDATE (discern.retry, a rescued lease) wakes workers too. Only
-- rows that become available now: claims and completions must not wake everybody. PostgreSQL
-- folds identical notifications of one transaction into one.
CREATE TRIGGER jobs_notify_requeue AFTER UPDATE OF state ON discern.jobs
FOR EACH ROW WHEN (NEW.state = 'available' AND OLD.state <> 'available' AND NEW.run_at <= now())
EXECUTE FUNCTION discern.notify_jobs();

-- Optional de-duplication: at most one unfinished or succeeded job per key (for example
-- content hash + backend + action). Dead and cancelled jobs do not block a new one.
ALTER TABLE discern.jobs ADD COLUMN unique_key text;
CREATE UNIQUE INDEX jobs_unique_key ON discern.jobs (unique_key)
    WHERE unique_key IS NOT NULL AND state IN ('available', 'running', 'succeeded');

-- The queue table is updated on every claim and completion: leave room on each page so those
-- updates stay HOT (no index writes), and vacuum it early.
ALTER TABLE discern.jobs SET (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02,
                              autovacuum_analyze_scale_factor = 0.02, autovacuum_vacuum_cost_delay = 1);

-- Finished jobs by finish time, for retention and throughput.
CREATE INDEX jobs_finished ON discern.jobs (finished_at) WHERE finished_at IS NOT NULL;

-- Bulk enqueue: one job per path. Paths whose unique key is already taken are skipped.
-- Returns how many jobs were added.
CREATE FUNCTION discern.enqueue_many(
    image_paths  text[],
    backend      text DEFAULT 'discerner',
    action       text DEFAULT 'analyze',
    priority     smallint DEFAULT 0,
    batch        text DEFAULT NULL,
    unique_keys  text[] DEFAULT NULL
) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    found_batch bigint := discern.batch_id(enqueue_many.batch);
    added integer;
BEGIN
    INSERT INTO discern.jobs (batch_id, backend, action, image_path, priority, unique_key)
    SELECT found_batch, enqueue_many.backend, enqueue_many.action, p.path, enqueue_many.priority, p.key
    FROM unnest(image_paths, coalesce(unique_keys, array_fill(NULL::text, ARRAY[cardinality(image_paths)])))
         AS p(path, key)
    ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS added = ROW_COUNT;
    RETURN added;
END;
$$;

-- Re-queue every dead job of a batch. Returns how many.
CREATE FUNCTION discern.retry_batch(batch text) RETURNS integer
LANGUAGE sql AS $$
    SELECT discern.retry(coalesce(array_agg(j.id), '{}'))
    FROM discern.jobs j JOIN discern.batches b ON b.id = j.batch_id
    WHERE b.name = batch AND j.state = 'dead';
$$;

-- Retention: delete finished jobs (succeeded, dead, cancelled) that finished before the cutoff,
-- at most `batch_size` per call so the locks stay short; results are kept. Returns how many.
CREATE FUNCTION discern.prune(older_than interval, batch_size integer DEFAULT 10000) RETURNS integer
LANGUAGE sql AS $$
    WITH doomed AS (
        SELECT id FROM discern.jobs
        WHERE finished_at < now() - older_than AND state IN ('succeeded', 'dead', 'cancelled')
        ORDER BY finished_at
        LIMIT batch_size
        FOR UPDATE SKIP LOCKED
    ), deleted AS (
        DELETE FROM discern.jobs j USING doomed WHERE j.id = doomed.id RETURNING 1
    )
    SELECT count(*)::integer FROM deleted;
$$;

-- Finished jobs per minute and outcome, for the last 24 hours.
CREATE VIEW discern.throughput_per_minute AS
SELECT date_trunc('minute', finished_at) AS minute, backend, state, count(*) AS jobs
FROM discern.jobs
WHERE finished_at > now() - interval '24 hours'
GROUP BY 1, 2, 3;

-- Finished jobs per hour and outcome, for the last 30 days.
CREATE VIEW discern.throughput_per_hour AS
SELECT date_trunc('hour', finished_at) AS hour, backend, state, count(*) AS jobs
FROM discern.jobs
WHERE finished_at > now() - interval '30 days'
GROUP BY 1, 2, 3;

-- Dead jobs by error kind, with an example message and the newest occurrence.
CREATE VIEW discern.errors_by_kind AS
SELECT backend, error_kind, count(*) AS jobs, max(finished_at) AS last_seen,
       (array_agg(last_error ORDER BY finished_at DESC))[1] AS example
FROM discern.jobs
WHERE state = 'dead'
GROUP BY backend, error_kind;

-- Progress of each batch.
CREATE VIEW discern.batch_progress AS
SELECT b.id AS batch_id, b.name, b.created_at,
       count(j.id) AS jobs,
       count(*) FILTER (WHERE j.state = 'available') AS available,
       count(*) FILTER (WHERE j.state = 'running') AS running,
       count(*) FILTER (WHERE j.state = 'succeeded') AS succeeded,
       count(*) FILTER (WHERE j.state = 'dead') AS dead,
       count(*) FILTER (WHERE j.state = 'cancelled') AS cancelled,
       round(100.0 * count(*) FILTER (WHERE j.state IN ('succeeded', 'dead', 'cancelled')) / greatest(count(j.id), 1), 1) AS percent_done,
       max(j.finished_at) AS last_finished_at
FROM discern.batches b LEFT JOIN discern.jobs j ON j.batch_id = b.id
GROUP BY b.id, b.name, b.created_at;

-- The newest result for each image.
CREATE VIEW discern.latest_results AS
SELECT DISTINCT ON (image_path) *
FROM discern.results
ORDER BY image_path, created_at DESC, id DESC;
