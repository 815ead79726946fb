-- discern schema, version 9: batch summaries that cost nothing to show once a batch is finished.
--
-- Summarising a batch (counts by state, bytes, outcomes, top errors) reads every one of its jobs
-- and results: about 25 ms for 25,000 jobs. The console's batches page lists ten of them, so it
-- would take a quarter of a second on every refresh, almost all of it recounting batches that
-- ended days ago. A finished batch (nothing waiting or running) only changes when one of its
-- jobs leaves a final state (retry), jobs are added to it or deleted (prune). Those are the
-- rare paths, and each of them marks the batch with the id of the transaction that changed it
-- (batches.generation). discern.batch_summary(id) keeps the summary of a finished batch with
-- the generation it was computed at and trusts it while the generation is unchanged; a running
-- batch's summary is trusted for 10 s.
--
-- Why this is race-free: a change and its mark commit together, so the snapshot a summary is
-- computed from sees both or neither. The generation is read before the summary is computed;
-- a change committed in between leaves a stored summary whose generation is already old, so it
-- is never trusted. The hot path (claim, complete, fail, rescue: no final state is left) never
-- touches batches; only the enqueue path does, once per INSERT statement.

-- The per-batch queries read each batch's range of results (the batches page, discern report).
CREATE INDEX IF NOT EXISTS results_batch ON discern.results USING brin (batch_id);

ALTER TABLE discern.batches ADD COLUMN generation bigint NOT NULL DEFAULT 0;

CREATE TABLE discern.batch_summaries (
    batch_id     bigint PRIMARY KEY REFERENCES discern.batches(id) ON DELETE CASCADE,
    generation   bigint NOT NULL,
    summary      jsonb NOT NULL,
    computed_at  timestamptz NOT NULL DEFAULT now()
);

-- Marks batches as changed by the current transaction (once per transaction and batch).
-- SECURITY DEFINER: discern_enqueue inserts jobs but may not update batches.
CREATE FUNCTION discern.mark_batches_changed(batch_ids bigint[]) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog AS $$
    UPDATE discern.batches SET generation = txid_current()
    WHERE id = ANY (batch_ids) AND generation <> txid_current();
$$;

CREATE FUNCTION discern.batch_rows_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
    IF TG_LEVEL = 'ROW' THEN
        PERFORM discern.mark_batches_changed(ARRAY[NEW.batch_id]);
    ELSIF TG_OP = 'INSERT' THEN
        PERFORM discern.mark_batches_changed(ARRAY(SELECT DISTINCT batch_id FROM added WHERE batch_id IS NOT NULL));
    ELSE
        PERFORM discern.mark_batches_changed(ARRAY(SELECT DISTINCT batch_id FROM removed WHERE batch_id IS NOT NULL));
    END IF;
    RETURN NULL;
END;
$$;

-- A job leaves a final state: retried, requeued by hand, cancelled after it died.
CREATE TRIGGER jobs_leave_final_state AFTER UPDATE OF state ON discern.jobs
    FOR EACH ROW WHEN (old.state IN ('succeeded', 'dead', 'cancelled') AND new.state IS DISTINCT FROM old.state)
    EXECUTE FUNCTION discern.batch_rows_changed();
CREATE TRIGGER jobs_added_to_batch AFTER INSERT ON discern.jobs
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION discern.batch_rows_changed();
CREATE TRIGGER jobs_removed_from_batch AFTER DELETE ON discern.jobs
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION discern.batch_rows_changed();
CREATE TRIGGER results_removed_from_batch AFTER DELETE ON discern.results
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION discern.batch_rows_changed();

-- One batch's summary: counts by state, the finishing rate over the last 10 minutes, bytes,
-- outcomes and the five most frequent kinds of death with an example message. Stored: a
-- finished batch's until the batch changes, a running batch's for 10 s (a 500,000-job batch
-- takes about half a second to count). NULL for a batch that does not exist.
CREATE FUNCTION discern.batch_summary(batch bigint) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    seen_generation bigint;
    doc jsonb;
BEGIN
    SELECT b.generation INTO seen_generation FROM discern.batches b WHERE b.id = batch;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    -- A finished batch's summary holds until the batch changes; a running one's for 10 s
    -- (completions do not mark the batch: its counts move on every one of them).
    SELECT s.summary INTO doc FROM discern.batch_summaries s
    WHERE s.batch_id = batch AND s.generation = seen_generation
      AND ((s.summary ->> 'available')::bigint + (s.summary ->> 'running')::bigint = 0
           OR s.computed_at > clock_timestamp() - interval '10 seconds');
    IF FOUND THEN
        RETURN doc;
    END IF;

    SELECT jsonb_build_object(
               'jobs', count(*),
               'available', count(*) FILTER (WHERE j.state = 'available'),
               'running', count(*) FILTER (WHERE j.state = 'running'),
               'succeeded', count(*) FILTER (WHERE j.state = 'succeeded'),
               'dead', count(*) FILTER (WHERE j.state = 'dead'),
               'cancelled', count(*) FILTER (WHERE j.state = 'cancelled'),
               'per_minute', count(*) FILTER (WHERE j.finished_at > now() - interval '10 minutes') / 10.0,
               'first_finished_at', min(j.finished_at),
               'last_finished_at', max(j.finished_at))
    INTO doc FROM discern.jobs j WHERE j.batch_id = batch;

    doc := doc || (
        SELECT jsonb_build_object(
                   'original_bytes', coalesce(sum(o.original_bytes), 0),
                   'sent_bytes', coalesce(sum(o.sent_bytes), 0),
                   'outcomes', coalesce(jsonb_agg(jsonb_build_object('outcome', o.outcome, 'results', o.results) ORDER BY o.results DESC), '[]'))
        FROM (SELECT coalesce(r.outcome, 'unknown') AS outcome, count(*) AS results,
                     sum(r.original_bytes) AS original_bytes, sum(r.sent_bytes) AS sent_bytes
              FROM discern.results r WHERE r.batch_id = batch GROUP BY 1) o);

    doc := doc || jsonb_build_object('errors', (
        SELECT coalesce(jsonb_agg(jsonb_build_object('error_kind', e.error_kind, 'jobs', e.jobs, 'example', e.example) ORDER BY e.jobs DESC), '[]')
        FROM (SELECT j.error_kind, count(*) AS jobs, left(max(j.last_error), 300) AS example FROM discern.jobs j
              WHERE j.batch_id = batch AND j.state = 'dead' GROUP BY j.error_kind ORDER BY count(*) DESC LIMIT 5) e));

    BEGIN
        INSERT INTO discern.batch_summaries (batch_id, generation, summary, computed_at)
        VALUES (batch, seen_generation, doc, clock_timestamp())
        ON CONFLICT (batch_id) DO UPDATE
        SET generation = excluded.generation, summary = excluded.summary, computed_at = excluded.computed_at;
    EXCEPTION WHEN read_only_sql_transaction THEN
        NULL;  -- a read-only replica or transaction: the summary is computed every time
    END;
    RETURN doc;
END;
$$;

-- The summary shows example error messages: not for discern_enqueue, which reads no job.
REVOKE EXECUTE ON FUNCTION discern.batch_summary(bigint), discern.mark_batches_changed(bigint[]) FROM PUBLIC;
DO $grants$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_reader') THEN
        GRANT EXECUTE ON FUNCTION discern.batch_summary(bigint) TO discern_reader;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_worker') THEN
        GRANT EXECUTE ON FUNCTION discern.batch_summary(bigint) TO discern_worker;
    END IF;
END;
$grants$;
