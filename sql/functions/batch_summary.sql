-- One batch's summary for the console's Batches page, `discern batches` and discern.batch_progress:
-- counts by state, the finishing rate over the last 10 minutes, bytes, outcomes (from the results'
-- roll-up) and the five most frequent kinds of death with an example. Counting reads all the
-- batch's jobs (about 25 ms per 25,000), so the summary is stored: a finished batch's is trusted
-- while batches.generation is unchanged (discern.mark_batches_changed), a running batch's for 10 s.
-- The generation is read before counting, so a change committed meanwhile leaves the stored copy
-- stale, never trusted. NULL for a batch that does not exist; computed every time when read-only.
CREATE OR REPLACE FUNCTION discern.batch_summary(batch bigint) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    seen_generation bigint;
    doc jsonb;
BEGIN
    SELECT b.generation INTO seen_generation FROM discern.batches b WHERE b.id = batch;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
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
        FROM (SELECT r.outcome, sum(r.results) AS results, sum(r.original_bytes) AS original_bytes, sum(r.sent_bytes) AS sent_bytes
              FROM discern.results_per_batch r WHERE r.batch_id = batch GROUP BY 1) o);

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
        NULL;
    END;
    RETURN doc;
END;
$$;
