-- The claim of workers from before version 30, kept so they go on working through a rolling
-- upgrade (a prepared statement cannot take a new result column): discern.claim without its
-- `probe` column. Such a worker may be handed a service's probe; it runs it as any job, and a
-- newer worker's probe closes the breaker.
CREATE OR REPLACE FUNCTION discern.claim_jobs(worker text, wanted integer, lease_seconds double precision, backends text[],
                                   holding_nothing boolean, oldest_first integer)
RETURNS TABLE (id bigint, batch_id bigint, backend text, action text, image_path text, params text,
               attempts integer, max_attempts integer, alone boolean)
LANGUAGE sql AS $$
    SELECT c.id, c.batch_id, c.backend, c.action, c.image_path, c.params, c.attempts, c.max_attempts, c.alone
    FROM discern.claim(worker, wanted, lease_seconds, backends, holding_nothing, oldest_first) AS c;
$$;
