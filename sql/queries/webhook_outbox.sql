-- discern.batch_events, discern.notification_destinations, discern.notification_deliveries: the outbox of batch webhooks (JobQueue.WebhookOutbox).

-- name: announce
-- $1 settleSeconds: float8
-- returns: announced integer?
-- Gives the batches that ended and settled (`$1` seconds) their event; returns how many. One
-- caller at a time does the work (an advisory lock); the others get 0
-- (sql/functions/announce_batches.sql).
SELECT discern.announce_batches($1) AS announced;

-- name: register
-- $1 destinations: text[]
-- Records destinations as known from now: each receives the events after its first sighting.
INSERT INTO discern.notification_destinations (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING;

-- name: owedDeliveries
-- $1 destinations: text[]
-- Makes the deliveries owed to the destinations `$1`: one per event since each was first
-- seen, of the last seven days.
INSERT INTO discern.notification_deliveries (event_id, destination)
SELECT e.id, d.name FROM discern.notification_destinations d
JOIN discern.batch_events e ON e.created_at >= d.first_seen_at
WHERE d.name = ANY($1::text[]) AND NOT e.report ? 'before_notifications'
  AND e.created_at > now() - interval '7 days'
ON CONFLICT (event_id, destination) DO NOTHING;

-- name: takeDue
-- $1 destinations: text[]
-- $2 limit: integer
-- $3 leaseSeconds: float8
-- returns: event_id bigint, destination text, attempts integer, report text, age float8?
-- Takes up to `$2` due deliveries to the destinations `$1`, each pushed `$3` seconds into the
-- future as it is taken, so another worker leaves it alone while this one sends, and a worker
-- that dies sending leaves it due again; with each, its event's report and age.
WITH due AS (
    SELECT event_id, destination FROM discern.notification_deliveries
    WHERE state = 'pending' AND next_attempt_at <= now() AND destination = ANY($1::text[])
    ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED
), taken AS (
    UPDATE discern.notification_deliveries d
    SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $3)
    FROM due WHERE d.event_id = due.event_id AND d.destination = due.destination
    RETURNING d.event_id, d.destination, d.attempts
)
SELECT t.event_id, t.destination, t.attempts, e.report::text AS report,
       extract(epoch FROM now() - e.created_at)::float8 AS age
FROM taken t JOIN discern.batch_events e ON e.id = t.event_id
ORDER BY t.event_id;

-- name: record
-- $1 event: bigint
-- $2 destination: text
-- $3 state: text
-- $4 status: integer?
-- $5 error: text?
-- $6 retrySeconds: float8
-- What came of one try: delivered, pending again `$6` seconds from now, or failed for good.
UPDATE discern.notification_deliveries
SET state = $3, last_status = $4, last_error = $5, next_attempt_at = now() + make_interval(secs => $6),
    delivered_at = CASE WHEN $3 = 'delivered' THEN now() END
WHERE event_id = $1 AND destination = $2 AND state = 'pending';
