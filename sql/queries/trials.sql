-- discern.trials, discern.trial_results: trials of a candidate before a cutover (JobQueue.Trials, QueueReads.TrialReport, `discern trial`).

-- name: create
-- $1 name: text
-- $2 service: text
-- $3 action: text
-- $4 productionService: text
-- $5 productionAction: text
-- $6 batch: text
-- $7 sampleCount: integer?
-- $8 share: float8?
-- $9 seed: bigint
-- $10 candidate: jsonb
-- returns: id bigint
-- A new trial: `$1` name, `$2` service, `$3` action, `$4` production service, `$5` its action,
-- `$6` batch name, `$7` sample count or `$8` share, `$9` seed, `$10` the candidate's settings.
-- Nothing when the name is taken (`find` then reads the one there).
INSERT INTO discern.trials (name, backend, action, production_backend, production_action, batch_id, sample_count, share, seed, candidate)
SELECT $1, $2, $3, $4, $5, b.id, $7::integer, $8::float8, $9::bigint, $10::jsonb
FROM discern.batches b WHERE b.name = $6
ON CONFLICT (name) DO NOTHING
RETURNING id;

-- name: find
-- $1 name: text
-- returns: id bigint, name text, service text, action text, production_service text, production_action text, batch text, sample_count integer?, share float8?, seed bigint, candidate text
-- A trial by name, as `create` recorded it.
SELECT t.id, t.name, t.backend AS service, t.action, t.production_backend AS production_service, t.production_action, b.name AS batch, t.sample_count, t.share,
       t.seed, t.candidate::text AS candidate
FROM discern.trials t JOIN discern.batches b ON b.id = t.batch_id
WHERE t.name = $1;

-- name: pending
-- $1 trial: bigint
-- returns: image_path text, production_result_id bigint, params text
-- The photos of trial `$1`'s sample without an answer of the candidate yet (an error is asked
-- again), each with the production answer it is compared with and that job's params.
SELECT s.image_path, s.production_result_id, s.params::text AS params
FROM discern.trial_sample($1) s
WHERE NOT EXISTS (SELECT 1 FROM discern.trial_results tr
                  WHERE tr.trial_id = $1 AND tr.image_path = s.image_path AND tr.error_kind IS NULL);

-- name: store
-- $1 trial: bigint
-- $2 imagePath: text
-- $3 productionResult: bigint
-- $4 category: text?
-- $5 subcategory: text?
-- $6 serviceOperator: text?
-- $7 fleetId: text?
-- $8 licensePlate: text?
-- $9 confidence: float8?
-- $10 outcome: text?
-- $11 subjectId: text?
-- $12 apiCalls: integer
-- $13 prepareMilliseconds: float8?
-- $14 analyzeMilliseconds: float8?
-- $15 sentBytes: bigint?
-- $16 serviceHost: text?
-- $17 model: text?
-- $18 modelVersion: text?
-- $19 rawResponse: jsonb?
-- $20 errorKind: text?
-- $21 error: text?
-- The candidate's answer for a photo of trial `$1` (`$2` path, `$3` production result), or its
-- error (`$19`, `$20`): an error row is replaced by a later answer.
INSERT INTO discern.trial_results AS tr (trial_id, image_path, production_result_id, category, subcategory, operator, fleet_id,
                                         license_plate, confidence, outcome, subject_id, api_calls, prepare_ms, analyze_ms,
                                         sent_bytes, service_host, model, model_version, raw_response, error_kind, error)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::float8, $10, $11, $12::smallint, $13::float8, $14::float8, $15::bigint, $16, $17, $18,
        $19::jsonb, $20, $21)
ON CONFLICT (trial_id, image_path) DO UPDATE
SET production_result_id = excluded.production_result_id, category = excluded.category, subcategory = excluded.subcategory,
    operator = excluded.operator, fleet_id = excluded.fleet_id, license_plate = excluded.license_plate,
    confidence = excluded.confidence, outcome = excluded.outcome, subject_id = excluded.subject_id,
    api_calls = excluded.api_calls, prepare_ms = excluded.prepare_ms, analyze_ms = excluded.analyze_ms,
    sent_bytes = excluded.sent_bytes, service_host = excluded.service_host, model = excluded.model,
    model_version = excluded.model_version, raw_response = excluded.raw_response, error_kind = excluded.error_kind,
    error = excluded.error, created_at = now()
WHERE tr.error_kind IS NOT NULL;

-- name: list
-- returns: doc text?
-- Every trial, newest first, with how far it got: one JSON document (QueueReads.TrialList).
SELECT json_build_object('items', coalesce(json_agg(x ORDER BY x.created_at DESC, x.name), '[]')) AS doc FROM (
  SELECT t.name, t.backend, t.action, t.production_backend, b.name AS batch, t.sample_count, t.share, t.created_at, t.created_by,
         (SELECT count(*) FROM discern.trial_results r WHERE r.trial_id = t.id AND r.error_kind IS NULL) AS answered,
         (SELECT count(*) FROM discern.trial_results r WHERE r.trial_id = t.id AND r.error_kind IS NOT NULL) AS failed
  FROM discern.trials t JOIN discern.batches b ON b.id = t.batch_id) x;

-- name: report
-- $1 name: text
-- returns: doc text?
-- Trial `$1`'s comparison report as one JSON document (QueueReads.TrialReport): per field
-- (category, operator, fleet ID, licence plate, subject), how often the candidate agrees with
-- production, and, on the photos a person reviewed (the production result's newest review but
-- "cannot tell", as discern.audit_outcomes reads it), how often each is right; each with its 95 %
-- Wilson interval. Texts compare without case and outer spaces; both absent agree. Then each
-- side's calibration (right on every reviewed field, by confidence band), calls, cost and
-- latency per photo, and the models each side's answers name.
WITH t AS (
    SELECT t.*, b.name AS batch FROM discern.trials t JOIN discern.batches b ON b.id = t.batch_id WHERE t.name = $1
), pairs AS (
    SELECT tr.*, p.id AS p_id, p.category AS p_category, p.operator AS p_operator, p.fleet_id AS p_fleet_id,
           p.license_plate AS p_license_plate, p.subject_id AS p_subject_id, p.confidence AS p_confidence,
           p.api_calls AS p_api_calls, p.analyze_ms AS p_analyze_ms, p.model AS p_model, v.verdict,
           CASE WHEN v.verdict = 'corrected' THEN nullif(coalesce(v.category, p.category), '') ELSE p.category END AS t_category,
           CASE WHEN v.verdict = 'corrected' THEN nullif(coalesce(v.operator, p.operator), '') ELSE p.operator END AS t_operator,
           CASE WHEN v.verdict = 'corrected' THEN nullif(coalesce(v.fleet_id, p.fleet_id), '') ELSE p.fleet_id END AS t_fleet_id,
           CASE WHEN v.verdict = 'corrected' THEN nullif(coalesce(v.license_plate, p.license_plate), '') ELSE p.license_plate END
               AS t_license_plate
    FROM t JOIN discern.trial_results tr ON tr.trial_id = t.id
    LEFT JOIN discern.results p ON p.id = tr.production_result_id
    LEFT JOIN LATERAL (SELECT x.verdict, x.category, x.operator, x.fleet_id, x.license_plate FROM discern.corrections x
                       WHERE x.result_id = p.id ORDER BY x.id DESC LIMIT 1) v ON v.verdict <> 'cannot_tell'
), compared AS (
    SELECT * FROM pairs WHERE error_kind IS NULL AND p_id IS NOT NULL
), fields AS (
    SELECT f.field, f.position, lower(trim(f.production)) AS production, lower(trim(f.candidate)) AS candidate,
           lower(trim(f.truth)) AS truth, c.verdict IS NOT NULL AND f.position < 4 AS reviewed
    FROM compared c CROSS JOIN LATERAL (VALUES
        ('category', 0, c.p_category, c.category, c.t_category),
        ('operator', 1, c.p_operator, c.operator, c.t_operator),
        ('fleet_id', 2, c.p_fleet_id, c.fleet_id, c.t_fleet_id),
        ('license_plate', 3, c.p_license_plate, c.license_plate, c.t_license_plate),
        ('subject_id', 4, c.p_subject_id, c.subject_id, NULL)) AS f(field, position, production, candidate, truth)
), per_field AS (
    SELECT x.*, (discern.wilson(x.agree, x.n)).low AS agree_low, (discern.wilson(x.agree, x.n)).high AS agree_high,
           CASE WHEN x.reviewed > 0 THEN (discern.wilson(x.production_right, x.reviewed)).low END AS production_low,
           CASE WHEN x.reviewed > 0 THEN (discern.wilson(x.production_right, x.reviewed)).high END AS production_high,
           CASE WHEN x.reviewed > 0 THEN (discern.wilson(x.candidate_right, x.reviewed)).low END AS candidate_low,
           CASE WHEN x.reviewed > 0 THEN (discern.wilson(x.candidate_right, x.reviewed)).high END AS candidate_high
    FROM (SELECT f.field, min(f.position) AS position, count(*) AS n,
                 count(*) FILTER (WHERE f.production IS NOT DISTINCT FROM f.candidate) AS agree,
                 count(*) FILTER (WHERE f.reviewed) AS reviewed,
                 count(*) FILTER (WHERE f.reviewed AND f.production IS NOT DISTINCT FROM f.truth) AS production_right,
                 count(*) FILTER (WHERE f.reviewed AND f.candidate IS NOT DISTINCT FROM f.truth) AS candidate_right
          FROM fields f GROUP BY f.field) x
    WHERE x.n > 0
), calibration AS (
    SELECT k.side, discern.band_label(k.band) AS band, count(*) AS n, count(*) FILTER (WHERE k.right_all) AS right_count,
           (discern.wilson(count(*) FILTER (WHERE k.right_all), count(*))).low AS low,
           (discern.wilson(count(*) FILTER (WHERE k.right_all), count(*))).high AS high, min(k.band) AS band_order
    FROM (SELECT s.side, discern.confidence_band(s.confidence) AS band, s.right_all
          FROM compared c CROSS JOIN LATERAL (VALUES
              ('production', c.p_confidence,
               lower(trim(c.p_category)) IS NOT DISTINCT FROM lower(trim(c.t_category))
               AND lower(trim(c.p_operator)) IS NOT DISTINCT FROM lower(trim(c.t_operator))
               AND lower(trim(c.p_fleet_id)) IS NOT DISTINCT FROM lower(trim(c.t_fleet_id))
               AND lower(trim(c.p_license_plate)) IS NOT DISTINCT FROM lower(trim(c.t_license_plate))),
              ('candidate', c.confidence,
               lower(trim(c.category)) IS NOT DISTINCT FROM lower(trim(c.t_category))
               AND lower(trim(c.operator)) IS NOT DISTINCT FROM lower(trim(c.t_operator))
               AND lower(trim(c.fleet_id)) IS NOT DISTINCT FROM lower(trim(c.t_fleet_id))
               AND lower(trim(c.license_plate)) IS NOT DISTINCT FROM lower(trim(c.t_license_plate)))) AS s(side, confidence, right_all)
          WHERE c.verdict IS NOT NULL) k
    GROUP BY k.side, k.band
), sides AS (
    SELECT 'production' AS side, (SELECT production_backend FROM t) AS backend, count(*) AS photos,
           avg(c.p_api_calls) AS calls_per_photo,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY c.p_analyze_ms) AS latency_ms_median,
           percentile_cont(0.95) WITHIN GROUP (ORDER BY c.p_analyze_ms) AS latency_ms_p95,
           coalesce(array_remove(array_agg(DISTINCT c.p_model), NULL), '{}') AS models
    FROM compared c
    UNION ALL
    SELECT 'candidate', (SELECT backend FROM t), count(*), avg(c.api_calls),
           percentile_cont(0.5) WITHIN GROUP (ORDER BY c.analyze_ms), percentile_cont(0.95) WITHIN GROUP (ORDER BY c.analyze_ms),
           coalesce(array_remove(array_agg(DISTINCT c.model), NULL), '{}')
    FROM compared c
)
SELECT jsonb_build_object(
    'name', t.name, 'service', t.backend, 'action', t.action, 'production_service', t.production_backend,
    'production_action', t.production_action, 'batch', t.batch, 'sample_count', t.sample_count, 'share', t.share, 'seed', t.seed,
    'candidate', t.candidate, 'created_at', t.created_at, 'created_by', t.created_by,
    'sampled', (SELECT count(*) FROM discern.trial_sample(t.id)),
    'answered', (SELECT count(*) FROM pairs WHERE error_kind IS NULL),
    'compared', (SELECT count(*) FROM compared),
    'reviewed', (SELECT count(*) FROM compared WHERE verdict IS NOT NULL),
    'failed', (SELECT coalesce(jsonb_object_agg(k.error_kind, k.n), '{}') FROM
                (SELECT error_kind, count(*) AS n FROM pairs WHERE error_kind IS NOT NULL GROUP BY 1) k),
    'fields', (SELECT coalesce(jsonb_agg(to_jsonb(f) - 'position' ORDER BY f.position), '[]') FROM per_field f),
    'calibration', (SELECT coalesce(jsonb_agg(to_jsonb(c) - 'band_order' ORDER BY c.side DESC, c.band_order), '[]') FROM calibration c),
    'sides', (SELECT jsonb_agg(to_jsonb(s) || jsonb_build_object(
                  'price_per_call', b.price_per_call,
                  'cost_per_photo', round(b.price_per_call * s.calls_per_photo::numeric, 6)) ORDER BY s.side DESC)
              FROM sides s LEFT JOIN discern.service_budgets b ON b.backend = s.backend)
) AS doc
FROM t;
