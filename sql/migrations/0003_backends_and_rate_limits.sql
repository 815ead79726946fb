-- discern schema, version 3: results that serve all five services, and rate limits shared by
-- every worker process.

-- The common core (category, operator, confidence, ...) stays as it is. Three columns every
-- service fills, so a dashboard can group results without knowing each service:
--   outcome     what the answer amounts to: identified / unidentified (discerner),
--               match / no_match / no_face (ooto identify, azure-face), enrolled / deleted (ooto),
--               confident / unsure (landmark), genuine / not_genuine (unissey)
--   subject_id  who or what was recognised: an OOTO templateId, an Azure personId, a landmark label
--   details     per-service structured detail (top-3 predictions, candidates, liveness, trust score)
-- docs/backends.md lists what each service writes where.
ALTER TABLE discern.results
    ADD COLUMN outcome text,
    ADD COLUMN subject_id text,
    ADD COLUMN details jsonb NOT NULL DEFAULT '{}'::jsonb,
    ADD COLUMN api_calls smallint NOT NULL DEFAULT 0;

-- No index on (backend, outcome): every completion would pay for it, and the dashboards'
-- per-outcome counts scan by time (results_created_at) or all results anyway.

-- The job's unique key (content hash + backend + action), kept with the result: `discern
-- enqueue` skips files already analysed even after their jobs were pruned.
ALTER TABLE discern.results ADD COLUMN unique_key text;
CREATE INDEX results_unique_key ON discern.results (unique_key) WHERE unique_key IS NOT NULL;

-- Results by service and outcome, for dashboards.
CREATE VIEW discern.outcomes_by_backend AS
SELECT backend, action, coalesce(outcome, 'unknown') AS outcome, count(*) AS results,
       avg(confidence) AS avg_confidence, max(created_at) AS last_result_at
FROM discern.results
GROUP BY backend, action, coalesce(outcome, 'unknown');

-- Token buckets, one per service endpoint that has a quota. Every worker on every machine takes
-- a token here before calling the service, so the limit holds however many workers run.
-- Operations change a limit with a plain UPDATE; it applies at the next call. A key without a
-- row is not limited.
CREATE TABLE discern.rate_limits (
    key          text PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 100),
    per_minute   double precision NOT NULL CHECK (per_minute > 0),
    -- Calls that may go out at once after a quiet spell.
    burst        double precision NOT NULL CHECK (burst >= 1),
    tokens       double precision NOT NULL,
    refilled_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    note         text
);

-- Defaults from the services' documentation (shared/contracts.md).
INSERT INTO discern.rate_limits (key, per_minute, burst, tokens, note) VALUES
    ('discerner:upload-url', 100, 5, 5, 'Image Discerner documented limit: upload-url 100/min'),
    ('discerner:analyze', 50, 5, 5, 'Image Discerner documented limit: analyze 50/min'),
    ('azure-face', 20, 1, 1, 'Azure Face free tier: 20 calls/min (detect and identify both count); standard tier: 10/s');

-- Takes one token for the key. Returns 0 when the call may go now, otherwise the seconds to
-- wait before asking again. One short row lock; called outside any transaction.
CREATE FUNCTION discern.take_rate_token(limit_key text) RETURNS double precision
LANGUAGE plpgsql AS $$
DECLARE
    bucket discern.rate_limits;
    moment timestamptz := clock_timestamp();
    available double precision;
BEGIN
    SELECT * INTO bucket FROM discern.rate_limits WHERE key = limit_key FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    available := least(bucket.burst,
                       bucket.tokens + greatest(extract(epoch FROM moment - bucket.refilled_at), 0) * bucket.per_minute / 60);
    IF available >= 1 THEN
        UPDATE discern.rate_limits SET tokens = available - 1, refilled_at = moment WHERE key = limit_key;
        RETURN 0;
    END IF;
    UPDATE discern.rate_limits SET tokens = available, refilled_at = moment WHERE key = limit_key;
    RETURN (1 - available) * 60 / bucket.per_minute;
END;
$$;

-- The service answered 429: empty the bucket, so every worker slows to the refill rate at once
-- instead of each finding out with its own 429.
CREATE FUNCTION discern.rate_limited(limit_key text) RETURNS void
LANGUAGE sql AS $$
    UPDATE discern.rate_limits SET tokens = least(tokens, 0), refilled_at = clock_timestamp() WHERE key = limit_key;
$$;

-- Bulk enqueue with per-job parameters (templateId, personGroupId, selfie_metadata, ...), the
-- same for every path of the call. Replaces version 2's function, which had no params.
DROP FUNCTION discern.enqueue_many(text[], text, text, smallint, text, text[]);
CREATE FUNCTION discern.enqueue_many(
    image_paths  text[],
    backend      text DEFAULT 'discerner',
    action       text DEFAULT 'analyze',
    priority     smallint DEFAULT 0,
    batch        text DEFAULT NULL,
    unique_keys  text[] DEFAULT NULL,
    params       jsonb DEFAULT '{}'::jsonb
) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    found_batch bigint := discern.batch_id(enqueue_many.batch);
    added integer;
BEGIN
    INSERT INTO discern.jobs (batch_id, backend, action, image_path, priority, unique_key, params)
    SELECT found_batch, enqueue_many.backend, enqueue_many.action, p.path, enqueue_many.priority, p.key,
           coalesce(enqueue_many.params, '{}'::jsonb)
    FROM unnest(image_paths, coalesce(unique_keys, array_fill(NULL::text, ARRAY[cardinality(image_paths)])))
         AS p(path, key)
    ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS added = ROW_COUNT;
    RETURN added;
END;
$$;
