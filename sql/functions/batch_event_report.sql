-- What a batch's notification says (discern.announce_batches fixes it when the batch ends): its
-- counts by outcome, bytes before and after preparation, the calls its results took and what they
-- cost (service_budgets.price_per_call; null when no service of the batch has a price), the five
-- commonest kinds of death with an example, and when it started and ended. The results' figures
-- come from their roll-up plus the pending events (discern.results_per_batch): exact, and a few
-- rows however big the batch.
CREATE OR REPLACE FUNCTION discern.batch_event_report(batch bigint) RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT jsonb_build_object(
        'batch', b.name, 'batch_id', b.id, 'created_at', b.created_at,
        'jobs', s.jobs, 'succeeded', s.succeeded, 'dead', s.dead, 'cancelled', s.cancelled,
        'first_finished_at', s.first_finished, 'ended_at', s.last_finished,
        'original_bytes', coalesce(r.original_bytes, 0), 'sent_bytes', coalesce(r.sent_bytes, 0),
        'api_calls', coalesce(r.api_calls, 0), 'spend', r.spend,
        'top_errors', coalesce((
            SELECT jsonb_agg(jsonb_build_object('kind', e.kind, 'jobs', e.jobs, 'example', e.example) ORDER BY e.jobs DESC, e.kind)
            FROM (SELECT coalesce(j.error_kind, 'unknown') AS kind, count(*) AS jobs,
                         left(coalesce((array_agg(j.last_error ORDER BY j.finished_at DESC))[1], ''), 200) AS example
                  FROM discern.jobs j WHERE j.batch_id = b.id AND j.state = 'dead'
                  GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5) e), '[]'::jsonb))
    FROM discern.batches b
    CROSS JOIN LATERAL (
        SELECT count(*) AS jobs, count(*) FILTER (WHERE j.state = 'succeeded') AS succeeded,
               count(*) FILTER (WHERE j.state = 'dead') AS dead, count(*) FILTER (WHERE j.state = 'cancelled') AS cancelled,
               min(j.finished_at) AS first_finished, max(j.finished_at) AS last_finished
        FROM discern.jobs j WHERE j.batch_id = b.id) s
    CROSS JOIN LATERAL (
        SELECT sum(p.original_bytes) AS original_bytes, sum(p.sent_bytes) AS sent_bytes, sum(p.api_calls) AS api_calls,
               sum(p.api_calls * sb.price_per_call) AS spend
        FROM discern.results_per_batch p LEFT JOIN discern.service_budgets sb ON sb.backend = p.backend
        WHERE p.batch_id = b.id) r
    WHERE b.id = batch;
$$;
