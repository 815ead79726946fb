-- The raw SKIP LOCKED baseline: claim 100 jobs, then complete them, as two transactions.
UPDATE bench_raw SET state = 'running', owner = :client_id
WHERE id IN (SELECT id FROM bench_raw WHERE state = 'available' ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED);
UPDATE bench_raw SET state = 'done', owner = NULL WHERE owner = :client_id AND state = 'running';
