-- discern.results, discern.batches: the results page, a page of cards at a time, as one JSON document (QueueReads.ResultPage).

-- fragment: card_columns
-- A result card's columns (`r` the results, `b` their batch), as `ResultPage.Card` reads them:
-- the results page and both review queues list cards.
r.id, r.job_id, b.name AS batch, r.image_path, r.backend, r.action, r.outcome, r.subject_id, r.category, r.operator,
r.fleet_id, r.license_plate, r.confidence, r.original_bytes, r.sent_bytes, r.passed_through, r.model, r.created_at

-- name: page
-- $1 before: bigint?
-- $2 batch: text?
-- $3 service: text?
-- $4 outcome: text?
-- $5 operatorName: text?
-- $6 platePattern: text?
-- $7 minConfidence: float8?
-- $8 maxConfidence: float8?
-- $9 from: text?
-- $10 to: text?
-- $11 limit: integer
-- $12 imagePath: text?
-- returns: doc text?
-- Results newest first, filtered ($2 batch name, $3 service, $4 outcome, $5 operator, $6 a
-- LIKE pattern for the plate or fleet ID, $7..$8 confidence, $9..$10 days, $12 one photo's
-- path: its answers over time, read by results_image_path), by keyset: those before the id
-- `$1`, `$11` of them, never OFFSET; each a card (`card_columns`).
SELECT json_build_object('items', coalesce(json_agg(x ORDER BY x.id DESC), '[]')) AS doc FROM (
  SELECT {{card_columns}}
  FROM discern.results r LEFT JOIN discern.batches b ON b.id = r.batch_id
  WHERE ($1::bigint IS NULL OR r.id < $1)
    AND ($2::text IS NULL OR r.batch_id = (SELECT id FROM discern.batches WHERE name = $2))
    AND ($3::text IS NULL OR r.backend = $3)
    AND ($4::text IS NULL OR r.outcome = $4)
    AND ($5::text IS NULL OR lower(r.operator) = lower($5))
    AND ($6::text IS NULL OR r.license_plate ILIKE $6 OR r.fleet_id ILIKE $6)
    AND ($7::float8 IS NULL OR r.confidence >= $7) AND ($8::float8 IS NULL OR r.confidence <= $8)
    AND ($9::date IS NULL OR r.created_at >= $9::date) AND ($10::date IS NULL OR r.created_at < $10::date + 1)
    AND ($12::text IS NULL OR r.image_path = $12)
  ORDER BY r.id DESC LIMIT $11) x;
