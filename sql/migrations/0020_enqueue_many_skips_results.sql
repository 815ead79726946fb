-- One dedupe rule for both ways in (issue 24). `discern enqueue` skipped a file whose content
-- key already has a result (the job may have been pruned since); discern.enqueue_many only
-- skipped keys held by a job. Now both skip a key taken by a job (the unique index) or by a
-- result. discern_enqueue may read results.unique_key (0006), nothing else of them.
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
