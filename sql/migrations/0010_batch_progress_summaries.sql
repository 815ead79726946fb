-- discern schema, version 10: discern.batch_progress reads each batch's summary
-- (discern.batch_summary, migration 0009) instead of joining every batch with all its jobs.
-- At 20 million jobs the old view took 7 s for the five newest batches (bench/results): it
-- aggregated the whole history before the LIMIT. Now a finished batch costs one lookup of its
-- stored summary and only running batches are counted. Same columns, same grants.
CREATE OR REPLACE VIEW discern.batch_progress AS
SELECT b.id AS batch_id, b.name, b.created_at,
       (s.doc ->> 'jobs')::bigint AS jobs,
       (s.doc ->> 'available')::bigint AS available,
       (s.doc ->> 'running')::bigint AS running,
       (s.doc ->> 'succeeded')::bigint AS succeeded,
       (s.doc ->> 'dead')::bigint AS dead,
       (s.doc ->> 'cancelled')::bigint AS cancelled,
       round(100.0 * ((s.doc ->> 'succeeded')::bigint + (s.doc ->> 'dead')::bigint + (s.doc ->> 'cancelled')::bigint)
             / greatest((s.doc ->> 'jobs')::bigint, 1), 1) AS percent_done,
       (s.doc ->> 'last_finished_at')::timestamptz AS last_finished_at
FROM discern.batches b
CROSS JOIN LATERAL (SELECT discern.batch_summary(b.id) AS doc) s;
