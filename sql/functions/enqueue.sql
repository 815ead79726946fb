-- Enqueues one image and returns its job's id. Operations call it from psql (discern_enqueue may);
-- a plain INSERT into discern.jobs works too. It sets no unique key, so it also serves to analyse
-- content again on purpose.
CREATE OR REPLACE FUNCTION discern.enqueue(
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
