-- A trial's sample (`discern trial`, docs/operations.md "Trying a candidate before a cutover"):
-- the photos of its batch with a production answer from its production service and action, each
-- with that answer (the newest in the batch), in the order of md5(seed:path), the first
-- `sample_count` of them or the first `share` of them (rounded up). The same seed and batch give
-- the same sample; a larger count or share holds the smaller one's photos.
CREATE OR REPLACE FUNCTION discern.trial_sample(trial bigint)
RETURNS TABLE (image_path text, production_result_id bigint, params jsonb)
LANGUAGE sql STABLE AS $$
    WITH t AS (SELECT * FROM discern.trials WHERE id = trial),
    answered AS (
        SELECT DISTINCT ON (r.image_path) r.image_path, r.id, r.job_id
        FROM t JOIN discern.results r ON r.batch_id = t.batch_id AND r.backend = t.production_backend AND r.action = t.production_action
        ORDER BY r.image_path, r.created_at DESC, r.id DESC
    )
    SELECT a.image_path, a.id, coalesce(j.params, '{}'::jsonb)
    FROM answered a CROSS JOIN t LEFT JOIN discern.jobs j ON j.id = a.job_id
    ORDER BY md5(t.seed::text || ':' || a.image_path), a.image_path
    LIMIT (SELECT coalesce(t.sample_count, ceil(t.share * (SELECT count(*) FROM answered))::integer) FROM t);
$$;
