-- discern.results, discern.batches, discern.corrections: the review page's two queues, as one JSON document (QueueReads.ReviewQueue).

-- name: queue
-- $1 threshold: float8
-- $2 limit: integer
-- returns: doc text?
-- `$1` the confidence threshold, `$2` the cards per queue: results below the threshold not
-- reviewed yet, least confident first, and audited results not reviewed yet, newest first,
-- with the audit sample's last 7 days still waiting and today's reviews; each a card
-- (`card_columns`, sql/queries/results.sql).
SELECT json_build_object(
  'threshold', $1::float8,
  'items', (SELECT coalesce(json_agg(x ORDER BY x.confidence, x.id), '[]') FROM (
        SELECT {{card_columns}}
        FROM discern.results r LEFT JOIN discern.batches b ON b.id = r.batch_id
        WHERE r.confidence IS NOT NULL AND r.confidence < $1
          AND NOT EXISTS (SELECT 1 FROM discern.corrections c WHERE c.result_id = r.id)
        ORDER BY r.confidence, r.id LIMIT $2) x),
  'audit', (SELECT coalesce(json_agg(x ORDER BY x.id DESC), '[]') FROM (
        SELECT {{card_columns}}
        FROM discern.results r LEFT JOIN discern.batches b ON b.id = r.batch_id
        WHERE r.audit AND NOT EXISTS (SELECT 1 FROM discern.corrections c WHERE c.result_id = r.id)
        ORDER BY r.id DESC LIMIT $2) x),
  'audit_pending', (SELECT count(*) FROM discern.results r
                    WHERE r.audit AND r.created_at > now() - interval '7 days'
                      AND NOT EXISTS (SELECT 1 FROM discern.corrections c WHERE c.result_id = r.id)),
  'reviewed_today', (SELECT count(*) FROM discern.corrections WHERE corrected_at > date_trunc('day', now()))
) AS doc;
