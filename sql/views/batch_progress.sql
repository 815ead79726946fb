-- Progress of each batch (jobs by state, percent done, last finish) for dashboards, read from each
-- batch's stored summary (discern.batch_summary): a finished batch costs one lookup, and only
-- running batches are counted. Joining every batch with all its jobs took 7 s at 20 million jobs
-- for the five newest batches, since the whole history was aggregated before the LIMIT.
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
