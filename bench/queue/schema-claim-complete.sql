-- The raw claim + complete of raw-claim-complete.sql, written by hand against copies of discern's
-- own jobs and results tables (every index, CHECK and storage setting; run.py runs it without
-- and then with copies of the tables' triggers): what the schema costs without discern's code
-- (no PL/pgSQL claim, no pause, breaker, fairness or crash checks, no audit pick). Each claim takes 100 jobs as the worker's claim does, by
-- priority through jobs_claimable; the completion marks them succeeded and writes the same no-op
-- result row QueueBench writes, in one statement, as JobQueue.complete does.
WITH claimed AS (
    UPDATE bench_jobs AS j
    SET state = 'running', attempts = j.attempts + 1, lease_owner = 'bench-' || :client_id,
        lease_expires_at = now() + interval '60 seconds', updated_at = now()
    WHERE j.id IN (SELECT c.id FROM bench_jobs c
                   WHERE c.state = 'available' AND c.backend = 'discerner' AND c.run_at <= now()
                   ORDER BY c.priority, c.run_at, c.id
                   LIMIT 100
                   FOR UPDATE SKIP LOCKED)
    RETURNING j.id)
SELECT '{' || coalesce(string_agg(id::text, ','), '') || '}' AS ids FROM claimed
\gset
WITH done AS (
    UPDATE bench_jobs AS j
    SET state = 'succeeded', finished_at = now(), updated_at = now(),
        lease_owner = NULL, lease_expires_at = NULL, error_kind = NULL, last_error = NULL
    WHERE j.id = ANY(:ids::bigint[]) AND j.state = 'running' AND j.lease_owner = 'bench-' || :client_id
    RETURNING j.id, j.batch_id, j.image_path, j.backend, j.action, j.unique_key)
INSERT INTO bench_results (job_id, batch_id, image_path, backend, action, unique_key, raw_response,
                           original_bytes, original_width, original_height, original_format,
                           sent_bytes, sent_width, sent_height, sent_format,
                           encode_count, passed_through, prepare_ms, analyze_ms, audit)
SELECT id, batch_id, image_path, backend, action, unique_key, '{}',
       1, 1, 1, 'jpeg', 1, 1, 1, 'jpeg', 0, true, 0, 0, false
FROM done;
