-- Results by service, action and outcome, with the average confidence and the newest result, for
-- dashboards (docs/services.md). Read from the hourly roll-up plus the events not folded yet, so it
-- is exact at any table size without reading results.
CREATE OR REPLACE VIEW discern.outcomes_by_backend AS
SELECT backend, action, outcome, sum(results)::bigint AS results,
       sum(confidence_sum) / nullif(sum(confidence_count), 0) AS avg_confidence, max(last_result_at) AS last_result_at
FROM (SELECT backend, action, outcome, results, confidence_sum, confidence_count, last_result_at FROM discern.result_hours
      UNION ALL
      SELECT backend, action, outcome, 1, coalesce(confidence, 0), (confidence IS NOT NULL)::int, created_at
      FROM discern.pending_result_events) x
GROUP BY backend, action, outcome;
