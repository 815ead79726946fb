-- Re-analysis (`discern reanalyse`, docs/operations.md "Re-analysing photos"): enqueues the
-- photos whose current answer from a service matches a selection again, into the batch
-- `reanalysis:NAME`, at a background priority (30000: they run when nothing else of the service
-- waits, and the oldest-first share does not serve them; migration 39). Returns the batch, how
-- many photos the selection holds and how many jobs it added.
--
-- The photos: those with a result of `backend` (and `action`, when given) in `from_batch` and
-- created in [since, before). Their current answer: the newest result per photo and action, from
-- any batch (discern.result_provenance: older Image Discerner results' model and format come
-- from their raw answers). The other filters (model, model_version, service_host,
-- discern_version, category, a confidence band, `provenance` contained in the result's) apply to
-- that answer, so a photo re-analysed already, whose answer now comes from the new provider, is
-- not selected again. `at_most` keeps the first photos by path. `measured` and `measured_calls`:
-- of the photos added, those whose current answer counted its calls to the service (written by a
-- release that records discern_version: older ones counted Image Discerner's upload to storage
-- too), and those calls: the forecast's measure of what they take again.
--
-- The content-hash dedupe is bypassed on purpose, and only for this re-analysis: each job's
-- unique key is `reanalysis:NAME:` and a digest of the photo, service, action and params, so
-- running the same NAME again adds only what it did not (a dead job's photo is tried again),
-- and `discern enqueue` of the same files still skips them. A job's params are those of the job
-- that produced the answer; a pruned job's are lost and the new job gets none. Nothing is
-- overwritten: the new answer is a new row of discern.results beside the old one.
CREATE OR REPLACE FUNCTION discern.reanalyse(
    name            text,
    backend         text,
    action          text DEFAULT NULL,
    from_batch      text DEFAULT NULL,
    since           timestamptz DEFAULT NULL,
    before          timestamptz DEFAULT NULL,
    model           text DEFAULT NULL,
    model_version   text DEFAULT NULL,
    service_host    text DEFAULT NULL,
    discern_version text DEFAULT NULL,
    category        text DEFAULT NULL,
    confidence_min  double precision DEFAULT NULL,
    confidence_max  double precision DEFAULT NULL,
    provenance      jsonb DEFAULT NULL,
    at_most         integer DEFAULT NULL,
    priority        smallint DEFAULT 30000
) RETURNS TABLE (batch text, selected bigint, enqueued bigint, measured bigint, measured_calls bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    batch_name text := 'reanalysis:' || name;
    target bigint;
    source bigint;
BEGIN
    IF name IS NULL OR length(name) NOT BETWEEN 1 AND 100 OR name !~ '^[A-Za-z0-9._:-]+$' THEN
        RAISE EXCEPTION 'a re-analysis is named with 1 to 100 letters, digits, dots, dashes, underscores or colons, not %',
            coalesce(quote_literal(name), 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF from_batch IS NOT NULL THEN
        SELECT b.id INTO source FROM discern.batches b WHERE b.name = from_batch;
        IF source IS NULL THEN
            RAISE EXCEPTION 'there is no batch named %', quote_literal(from_batch) USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;
    target := discern.batch_id(batch_name);
    RETURN QUERY
    WITH photos AS (
        SELECT DISTINCT r.image_path, r.action FROM discern.results r
        WHERE r.backend = backend AND (action IS NULL OR r.action = action)
          AND (source IS NULL OR r.batch_id = source)
          AND (since IS NULL OR r.created_at >= since) AND (before IS NULL OR r.created_at < before)
    ), current AS (
        SELECT DISTINCT ON (p.image_path, p.action) c.id, c.job_id, c.image_path, c.action, c.category, c.confidence,
               c.service_host, c.discern_version, c.provenance, c.api_calls
        FROM photos p JOIN discern.results c ON c.image_path = p.image_path AND c.backend = backend AND c.action = p.action
        ORDER BY p.image_path, p.action, c.created_at DESC, c.id DESC
    ), chosen AS (
        SELECT c.image_path, c.action, coalesce(j.params, '{}'::jsonb) AS params,
               CASE WHEN c.discern_version IS NOT NULL THEN c.api_calls END AS api_calls
        FROM current c JOIN discern.result_provenance v ON v.id = c.id
        LEFT JOIN discern.jobs j ON j.id = c.job_id
        WHERE (model IS NULL OR v.model = model) AND (model_version IS NULL OR v.model_version = model_version)
          AND (service_host IS NULL OR c.service_host = service_host)
          AND (discern_version IS NULL OR c.discern_version = discern_version)
          AND (category IS NULL OR c.category = category)
          AND (confidence_min IS NULL OR c.confidence >= confidence_min)
          AND (confidence_max IS NULL OR c.confidence <= confidence_max)
          AND (provenance IS NULL OR c.provenance @> provenance)
        ORDER BY c.image_path, c.action
        LIMIT at_most
    ), keyed AS (
        SELECT c.*, batch_name || ':' || md5(backend || E'\n' || c.action || E'\n' || c.image_path || E'\n' || c.params::text) AS key
        FROM chosen c
    ), fresh AS (
        -- What this name has not enqueued yet (a job waiting, running or done, or a result, has
        -- the key), measured here rather than by joining the inserted rows back: planned on a
        -- one-row guess, that join took time growing with the square of the photos (7.6 s at
        -- 10,000, bench/reanalysis). ON CONFLICT still covers a second run racing this one.
        SELECT k.* FROM keyed k
        WHERE NOT EXISTS (SELECT 1 FROM discern.results r WHERE r.unique_key = k.key)
          AND NOT EXISTS (SELECT 1 FROM discern.jobs j WHERE j.unique_key = k.key AND j.state IN ('available', 'running', 'succeeded'))
    ), added AS (
        INSERT INTO discern.jobs (batch_id, backend, action, image_path, params, priority, unique_key)
        SELECT target, backend, f.action, f.image_path, f.params, priority, f.key
        FROM fresh f
        ON CONFLICT DO NOTHING
        RETURNING 1
    )
    SELECT batch_name, (SELECT count(*) FROM keyed), (SELECT count(*) FROM added),
           (SELECT count(f.api_calls) FROM fresh f), (SELECT coalesce(sum(f.api_calls), 0) FROM fresh f)::bigint;
END;
$$;
