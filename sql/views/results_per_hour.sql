-- Results per hour by backend, action, outcome, category and operator, with the average
-- confidence: what dashboards read for a time window (Grafana's $__timeFilter(hour)). The roll-up
-- stores a NULL category or operator as '' (a key column cannot be NULL); this view gives NULL
-- back.
CREATE OR REPLACE VIEW discern.results_per_hour AS
SELECT hour, backend, action, outcome, nullif(category, '') AS category, nullif(operator, '') AS operator,
       sum(results)::bigint AS results, sum(confidence_sum) / nullif(sum(confidence_count), 0) AS avg_confidence
FROM (SELECT hour, backend, action, outcome, category, operator, results, confidence_sum, confidence_count FROM discern.result_hours
      UNION ALL
      SELECT date_trunc('hour', created_at), backend, action, outcome, category, operator, 1, coalesce(confidence, 0),
             (confidence IS NOT NULL)::int
      FROM discern.pending_result_events) x
GROUP BY 1, 2, 3, 4, 5, 6;
