-- Roll-up trigger for results: each inserted result becomes a row of pending_result_events in the
-- writing transaction (an append that contends with nobody), which discern.roll_up folds into the
-- per-minute, per-hour, per-batch and per-band roll-ups. Deletes are not noted: the roll-ups keep
-- counting pruned results, since they say what was produced. SECURITY DEFINER: writers of results
-- need not be granted the pending table.
CREATE OR REPLACE FUNCTION discern.note_results_added() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
    INSERT INTO discern.pending_result_events
    SELECT created_at, batch_id, backend, action, coalesce(outcome, 'unknown'), coalesce(category, ''), coalesce(operator, ''),
           confidence, api_calls, original_bytes, sent_bytes, passed_through, prepare_ms, analyze_ms
    FROM added;
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS results_count_inserts ON discern.results;
CREATE TRIGGER results_count_inserts AFTER INSERT ON discern.results
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION discern.note_results_added();
