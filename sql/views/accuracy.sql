-- Measured accuracy per backend and field, by confidence band (a tenth wide; `all` for the
-- whole), from audit reviews only: for dashboards. The console and `discern quality` read the
-- same counts with filters by batch and time.
CREATE OR REPLACE VIEW discern.accuracy AS
SELECT backend, field, band, n, right_count, n - right_count AS errors, wrong, missing, invented,
       right_count::float8 / n AS accuracy, (discern.wilson(right_count, n)).low AS accuracy_low,
       (discern.wilson(right_count, n)).high AS accuracy_high
FROM (
    SELECT backend, field, CASE WHEN GROUPING(band) = 1 THEN 'all' ELSE discern.band_label(band) END AS band, count(*) AS n,
           count(*) FILTER (WHERE outcome = 'right') AS right_count, count(*) FILTER (WHERE outcome = 'wrong') AS wrong,
           count(*) FILTER (WHERE outcome = 'missing') AS missing, count(*) FILTER (WHERE outcome = 'invented') AS invented
    FROM (SELECT backend, field, outcome, discern.confidence_band(confidence) AS band
          FROM discern.audit_outcomes) o
    GROUP BY GROUPING SETS ((backend, field, band), (backend, field))
) x;
