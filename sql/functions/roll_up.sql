-- Folds the committed pending events (pending_job_events, pending_result_events) into the roll-up
-- tables the dashboards' views, batch summaries and the Quality page read. Every worker calls it
-- every few seconds and `discern prune` at its end; an advisory lock lets one run at a time (the
-- others return 0). DELETE ... RETURNING feeds the upserts, so each event is counted once, and
-- events of transactions not yet committed wait for the next run. Returns how many it moved.
CREATE OR REPLACE FUNCTION discern.roll_up() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    jobs_moved bigint;
    results_moved bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('discern.roll_up')) THEN
        RETURN 0;
    END IF;

    -- One statement per pending table: the DELETE's RETURNING feeds every upsert of it.
    WITH moved AS (DELETE FROM discern.pending_job_events RETURNING *),
    counts AS (
        INSERT INTO discern.job_state_counts AS c (backend, state, jobs)
        SELECT backend, state, sum(delta) FROM moved GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (backend, state) DO UPDATE SET jobs = c.jobs + excluded.jobs),
    minutes AS (
        INSERT INTO discern.job_minutes AS m (minute, backend, state, jobs)
        SELECT finished_minute, backend, state, sum(delta) FROM moved WHERE finished_minute IS NOT NULL
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (minute, backend, state) DO UPDATE SET jobs = m.jobs + excluded.jobs)
    SELECT count(*) INTO jobs_moved FROM moved;

    WITH moved AS (DELETE FROM discern.pending_result_events RETURNING *),
    minutes AS (
        INSERT INTO discern.result_minutes AS m (minute, backend, action, results, original_bytes, sent_bytes, analyze_ms_sum)
        SELECT date_trunc('minute', created_at), backend, action, count(*), sum(original_bytes), sum(sent_bytes), sum(analyze_ms)
        FROM moved GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (minute, backend, action) DO UPDATE
        SET results = m.results + excluded.results, original_bytes = m.original_bytes + excluded.original_bytes,
            sent_bytes = m.sent_bytes + excluded.sent_bytes, analyze_ms_sum = m.analyze_ms_sum + excluded.analyze_ms_sum),
    hours AS (
        INSERT INTO discern.result_hours AS h (hour, backend, action, outcome, category, operator, results, confidence_sum,
                                               confidence_count, last_result_at)
        SELECT date_trunc('hour', created_at), backend, action, outcome, category, operator, count(*),
               coalesce(sum(confidence), 0), count(confidence), max(created_at)
        FROM moved GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
        ON CONFLICT (hour, backend, action, outcome, category, operator) DO UPDATE
        SET results = h.results + excluded.results, confidence_sum = h.confidence_sum + excluded.confidence_sum,
            confidence_count = h.confidence_count + excluded.confidence_count,
            last_result_at = greatest(h.last_result_at, excluded.last_result_at)),
    batches AS (
        INSERT INTO discern.result_batches AS b (batch_id, backend, outcome, results, api_calls, original_bytes, sent_bytes,
                                                 passed_through, prepare_ms_sum, analyze_ms_sum, first_at, last_at)
        SELECT batch_id, backend, outcome, count(*), sum(api_calls), sum(original_bytes), sum(sent_bytes),
               count(*) FILTER (WHERE passed_through), sum(prepare_ms), sum(analyze_ms), min(created_at), max(created_at)
        FROM moved WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (batch_id, backend, outcome) DO UPDATE
        SET results = b.results + excluded.results, api_calls = b.api_calls + excluded.api_calls,
            original_bytes = b.original_bytes + excluded.original_bytes, sent_bytes = b.sent_bytes + excluded.sent_bytes,
            passed_through = b.passed_through + excluded.passed_through,
            prepare_ms_sum = b.prepare_ms_sum + excluded.prepare_ms_sum,
            analyze_ms_sum = b.analyze_ms_sum + excluded.analyze_ms_sum, first_at = least(b.first_at, excluded.first_at),
            last_at = greatest(b.last_at, excluded.last_at)),
    band_days AS (
        INSERT INTO discern.result_band_days AS d (day, backend, band, results)
        SELECT (created_at AT TIME ZONE 'UTC')::date, backend, discern.confidence_band(confidence), count(*)
        FROM moved GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (day, backend, band) DO UPDATE SET results = d.results + excluded.results),
    band_batches AS (
        INSERT INTO discern.result_band_batches AS bb (batch_id, backend, band, results)
        SELECT batch_id, backend, discern.confidence_band(confidence), count(*)
        FROM moved WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (batch_id, backend, band) DO UPDATE SET results = bb.results + excluded.results)
    SELECT count(*) INTO results_moved FROM moved;
    RETURN jobs_moved + results_moved;
END;
$$;
