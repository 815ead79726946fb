-- Backends with jobs waiting and no live worker serving them: an alert's question, and the alarm
-- at the top of the console's Overview and `discern status`.
CREATE OR REPLACE VIEW discern.unserved_backends AS
SELECT q.backend, q.jobs AS waiting
FROM (SELECT backend, count(*) AS jobs FROM discern.jobs WHERE state = 'available' AND run_at <= now() GROUP BY backend) q
WHERE NOT EXISTS (SELECT 1 FROM discern.live_workers w WHERE q.backend = ANY (w.backends));
