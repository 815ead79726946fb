-- Bulk enqueue from psql: one job per path, all with the same backend, action, params and batch,
-- in one statement (one wake-up of the workers). Returns how many jobs were added. A path whose
-- unique key is taken by a job (the unique index) or by a result (even of a pruned job) is
-- skipped: the dedupe rule `discern enqueue` keeps too (enqueueStaged of sql/queries/jobs.sql).
CREATE OR REPLACE FUNCTION discern.enqueue_many(
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
    WHERE p.key IS NULL OR NOT EXISTS (SELECT 1 FROM discern.results r WHERE r.unique_key = p.key)
    ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS added = ROW_COUNT;
    RETURN added;
END;
$$;
