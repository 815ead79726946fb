-- discern.batches, discern.jobs, discern.live_workers, discern.batch_events, discern.notification_deliveries: the batches page and `discern batches wait` (QueueReads.BatchSummary, QueueReads.BatchState).

-- name: summaries
-- $1 name: text?
-- $2 limit: integer
-- $3 before: bigint?
-- returns: doc text?
-- The newest batches (or those named `$1`), `$2` of them, older than the batch `$3` when
-- given (keyset pages), each with its summary, whether any worker lives, and its last
-- announced end with its deliveries.
-- The summary itself comes from discern.batch_summary, which keeps the
-- summaries of finished batches until they change, and a running batch's for 10 s.
SELECT coalesce(json_agg(jsonb_build_object('id', b.id, 'name', b.name, 'created_at', b.created_at, 'finishing_seconds',
                             extract(epoch FROM (s.doc ->> 'last_finished_at')::timestamptz - (s.doc ->> 'first_finished_at')::timestamptz))
                         || jsonb_build_object('no_live_worker', w.none, 'webhook', n.doc)
                         || s.doc ORDER BY b.created_at DESC, b.id DESC), '[]') AS doc
FROM (SELECT id, name, created_at FROM discern.batches
      WHERE ($1::text IS NULL OR name = $1)
        AND ($3::bigint IS NULL OR (created_at, id) < (SELECT o.created_at, o.id FROM discern.batches o WHERE o.id = $3))
      ORDER BY created_at DESC, id DESC LIMIT $2) b
CROSS JOIN LATERAL (SELECT discern.batch_summary(b.id) AS doc) s
CROSS JOIN (SELECT NOT EXISTS (SELECT 1 FROM discern.live_workers) AS none) w
LEFT JOIN LATERAL (
    SELECT jsonb_build_object('announced_at', e.created_at,
                              'delivered', count(d.event_id) FILTER (WHERE d.state = 'delivered'),
                              'pending', count(d.event_id) FILTER (WHERE d.state = 'pending'),
                              'failed', count(d.event_id) FILTER (WHERE d.state = 'failed'),
                              'last_error', (array_agg(d.last_error ORDER BY d.next_attempt_at DESC) FILTER (WHERE d.state <> 'delivered'))[1]) AS doc
    FROM (SELECT id, created_at FROM discern.batch_events WHERE batch_id = b.id AND NOT report ? 'before_notifications'
          ORDER BY id DESC LIMIT 1) e
    LEFT JOIN discern.notification_deliveries d ON d.event_id = e.id
    GROUP BY e.id, e.created_at) n ON true;

-- name: state
-- $1 name: text
-- returns: doc text?
-- Where the batch named `$1` stands, read fresh (no cached summary).
-- Whether anything is left is one look at the batch's index; the dead are counted from
-- their own partial index, the jobs only once it is done.
SELECT jsonb_build_object('name', b.name, 'waiting', w.n, 'dead', (SELECT count(*) FROM discern.jobs j WHERE j.batch_id = b.id AND j.state = 'dead'),
                          'jobs', CASE WHEN w.n = 0 THEN (SELECT count(*) FROM discern.jobs j WHERE j.batch_id = b.id) ELSE -1 END) AS doc
FROM discern.batches b
CROSS JOIN LATERAL (SELECT count(*) AS n FROM (SELECT 1 FROM discern.jobs j WHERE j.batch_id = b.id AND j.state IN ('available', 'running') LIMIT 1) x) w
WHERE b.name = $1;
