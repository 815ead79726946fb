-- The id of the named batch, created if new; NULL for a NULL name. discern.enqueue,
-- discern.enqueue_many and `discern enqueue` name batches through it (discern_enqueue may call
-- it); ON CONFLICT lets two enqueues that create the same batch at once share one row.
CREATE OR REPLACE FUNCTION discern.batch_id(batch text) RETURNS bigint
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
