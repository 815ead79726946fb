-- Results by confidence band (discern.confidence_band) per UTC day and backend, folded or still
-- pending: what a review threshold costs, for the console's Quality page and `discern quality`,
-- without counting every result (1.1 s at a million results, bench/console).
CREATE OR REPLACE VIEW discern.result_bands AS
SELECT day, backend, band, sum(results)::bigint AS results
FROM (SELECT day, backend, band, results FROM discern.result_band_days
      UNION ALL
      SELECT (created_at AT TIME ZONE 'UTC')::date, backend, discern.confidence_band(confidence), count(*)
      FROM discern.pending_result_events GROUP BY 1, 2, 3) x
GROUP BY 1, 2, 3;
