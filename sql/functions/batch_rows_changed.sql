-- Marks the batches of the rows a statement changed (discern.mark_batches_changed), so that a
-- finished batch's stored summary (discern.batch_summary) is counted again after the rare changes
-- that can alter it: jobs added or deleted, results deleted, a job leaving a final state. Claims
-- and completions fire none of these triggers, so the hot path never touches discern.batches.
-- Bulk inserts and deletes are handled per statement (one mark per batch, not per row).
CREATE OR REPLACE FUNCTION discern.batch_rows_changed() RETURNS trigger
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

DROP TRIGGER IF EXISTS jobs_added_to_batch ON discern.jobs;
CREATE TRIGGER jobs_added_to_batch AFTER INSERT ON discern.jobs
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION discern.batch_rows_changed();

-- A job leaves a final state: retried, requeued by hand, cancelled after it died.
DROP TRIGGER IF EXISTS jobs_leave_final_state ON discern.jobs;
CREATE TRIGGER jobs_leave_final_state AFTER UPDATE OF state ON discern.jobs
    FOR EACH ROW WHEN (old.state IN ('succeeded', 'dead', 'cancelled') AND new.state IS DISTINCT FROM old.state)
    EXECUTE FUNCTION discern.batch_rows_changed();

DROP TRIGGER IF EXISTS jobs_removed_from_batch ON discern.jobs;
CREATE TRIGGER jobs_removed_from_batch AFTER DELETE ON discern.jobs
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION discern.batch_rows_changed();

DROP TRIGGER IF EXISTS results_removed_from_batch ON discern.results;
CREATE TRIGGER results_removed_from_batch AFTER DELETE ON discern.results
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION discern.batch_rows_changed();
