-- Results per minute by backend and action, with bytes before and after preparation and the
-- analysis time: what dashboards read for a time window (Grafana's $__timeFilter(minute)).
-- Roll-up plus pending events: a six-hour window counted from the results took 3-4 s at 20
-- million rows (a result row is about 1 KB, mostly the raw answer).
CREATE OR REPLACE VIEW discern.results_per_minute AS
SELECT minute, backend, action, sum(results)::bigint AS results, sum(original_bytes)::bigint AS original_bytes,
       sum(sent_bytes)::bigint AS sent_bytes, sum(analyze_ms_sum) AS analyze_ms_sum
FROM (SELECT minute, backend, action, results, original_bytes, sent_bytes, analyze_ms_sum FROM discern.result_minutes
      UNION ALL
      SELECT date_trunc('minute', created_at), backend, action, 1, original_bytes, sent_bytes, analyze_ms
      FROM discern.pending_result_events) x
GROUP BY 1, 2, 3;
