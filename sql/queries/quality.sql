-- discern.batches, discern.results, discern.corrections, discern.audit_outcomes, discern.result_bands_by_batch, discern.result_bands, discern.results_per_batch: how right the service is, measured from audit reviews, as one JSON document (QueueReads.Quality).

-- name: document
-- $1 batch: text?
-- $2 since: timestamptz?
-- $3 service: text?
-- returns: doc text?
-- Takes $1 the batch name, $2 since (a timestamp), $3 the service. Every part reads the audit sample's
-- partial index or the band roll-ups, never every result.
WITH chosen AS (SELECT id FROM discern.batches WHERE name = $1),
audited AS (
    SELECT r.backend, count(*) AS audited FROM discern.results r
    WHERE r.audit AND ($1::text IS NULL OR r.batch_id = (SELECT id FROM chosen))
      AND r.created_at >= coalesce($2::timestamptz, '-infinity') AND ($3::text IS NULL OR r.backend = $3)
    GROUP BY 1
),
reviewed AS (
    SELECT r.backend, count(*) AS reviewed, count(*) FILTER (WHERE c.verdict = 'cannot_tell') AS cannot_tell
    FROM (SELECT DISTINCT ON (x.result_id) x.result_id, x.verdict FROM discern.corrections x ORDER BY x.result_id, x.id DESC) c
    JOIN discern.results r ON r.id = c.result_id AND r.audit
    WHERE ($1::text IS NULL OR r.batch_id = (SELECT id FROM chosen))
      AND r.created_at >= coalesce($2::timestamptz, '-infinity') AND ($3::text IS NULL OR r.backend = $3)
    GROUP BY 1
),
outcomes AS (
    SELECT o.backend, o.field, o.outcome,
           discern.confidence_band(o.confidence) AS band
    FROM discern.audit_outcomes o
    WHERE ($1::text IS NULL OR o.batch_id = (SELECT id FROM chosen))
      AND o.created_at >= coalesce($2::timestamptz, '-infinity') AND ($3::text IS NULL OR o.backend = $3)
),
counted AS (
    SELECT backend, field, CASE WHEN GROUPING(band) = 1 THEN 'all' ELSE discern.band_label(band) END AS band, count(*) AS n,
           count(*) FILTER (WHERE outcome = 'right') AS right_count, count(*) FILTER (WHERE outcome = 'wrong') AS wrong,
           count(*) FILTER (WHERE outcome = 'missing') AS missing, count(*) FILTER (WHERE outcome = 'invented') AS invented
    FROM outcomes GROUP BY GROUPING SETS ((backend, field, band), (backend, field))
),
written AS (
    SELECT backend, band, sum(results) AS results FROM (
        SELECT backend, band, results FROM discern.result_bands_by_batch
        WHERE $1::text IS NOT NULL AND batch_id = (SELECT id FROM chosen)
        UNION ALL
        SELECT backend, band, results FROM discern.result_bands
        WHERE $1::text IS NULL AND day >= coalesce(($2::timestamptz AT TIME ZONE 'UTC')::date, '-infinity')) x
    WHERE $3::text IS NULL OR backend = $3
    GROUP BY 1, 2
)
SELECT json_build_object(
  'rows', (SELECT coalesce(json_agg(x ORDER BY x.backend, x.field, x.band), '[]') FROM (
        SELECT c.backend, c.field, c.band, c.n, c.right_count AS right, c.wrong, c.missing, c.invented,
               c.right_count::float8 / c.n AS accuracy, w.low AS accuracy_low, w.high AS accuracy_high
        FROM counted c CROSS JOIN LATERAL discern.wilson(c.right_count, c.n) w) x),
  'written', (SELECT coalesce(json_agg(x ORDER BY x.backend, x.band), '[]') FROM (
        SELECT backend, discern.band_label(band) AS band, results FROM written) x),
  'samples', (SELECT coalesce(json_agg(x ORDER BY x.backend), '[]') FROM (
        SELECT a.backend, a.audited, coalesce(v.reviewed, 0) AS reviewed, coalesce(v.cannot_tell, 0) AS cannot_tell,
               a.audited - coalesce(v.reviewed, 0) AS pending
        FROM audited a LEFT JOIN reviewed v USING (backend)) x),
  'days', CASE WHEN $1::text IS NOT NULL
               THEN (SELECT greatest(1, (max(last_at) AT TIME ZONE 'UTC')::date - (min(first_at) AT TIME ZONE 'UTC')::date + 1)
                     FROM discern.results_per_batch WHERE batch_id = (SELECT id FROM chosen))
               ELSE greatest(1, (now() AT TIME ZONE 'UTC')::date - coalesce(($2::timestamptz AT TIME ZONE 'UTC')::date,
                             (SELECT min(day) FROM discern.result_bands), (now() AT TIME ZONE 'UTC')::date) + 1) END,
  'generated_at', now()
) AS doc;
