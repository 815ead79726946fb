-- discern schema, version 23: pausing a service. An operator pauses one (discern.pause, `discern
-- pause`, the console's Overview): workers stop claiming its jobs at their next claim, jobs in
-- flight finish, nothing is cancelled or lost; discern.resume wakes the workers again. Who paused
-- it, when and why stay beside it for the Overview and `discern status`.
CREATE TABLE discern.paused_backends (
    backend text PRIMARY KEY CHECK (length(backend) BETWEEN 1 AND 100),
    paused_by text NOT NULL CHECK (length(paused_by) <= 200),
    paused_at timestamptz NOT NULL DEFAULT now(),
    reason text CHECK (length(reason) <= 500)
);

-- True when it was running and is paused now; false when it was paused already.
CREATE FUNCTION discern.pause(backend text, paused_by text DEFAULT current_user, reason text DEFAULT NULL)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO discern.paused_backends (backend, paused_by, reason) VALUES (backend, paused_by, reason)
    ON CONFLICT ON CONSTRAINT paused_backends_pkey DO NOTHING;
    RETURN FOUND;
END;
$$;

-- True when it was paused and runs again; its waiting jobs wake the listening workers.
CREATE FUNCTION discern.resume(backend text) RETURNS boolean
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
BEGIN
    DELETE FROM discern.paused_backends p WHERE p.backend = backend;
    IF FOUND THEN
        PERFORM pg_notify('discern_jobs', '');
    END IF;
    RETURN FOUND;
END;
$$;

-- Operators (discern_worker, as for retry and cancel) pause and resume; readers see what is paused.
REVOKE EXECUTE ON FUNCTION discern.pause(text, text, text), discern.resume(text) FROM PUBLIC;
DO $grants$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_worker') THEN
        GRANT EXECUTE ON FUNCTION discern.pause(text, text, text), discern.resume(text) TO discern_worker;
        GRANT SELECT, INSERT, DELETE ON discern.paused_backends TO discern_worker;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_reader') THEN
        GRANT SELECT ON discern.paused_backends TO discern_reader;
    END IF;
END;
$grants$;

-- The claim skips paused services: the body of migration 0022 with each branch's backends
-- filtered in its own statement, not in a statement of its own added to every claim
-- (bench/RESULTS.md, Runtime A/B: within the noise of a control run).
CREATE OR REPLACE FUNCTION discern.claim_jobs(worker text, wanted integer, lease_seconds double precision, backends text[],
                                   holding_nothing boolean, oldest_first integer)
RETURNS TABLE (id bigint, batch_id bigint, backend text, action text, image_path text, params text,
               attempts integer, max_attempts integer, alone boolean)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
DECLARE
    chosen bigint[] := '{}';
BEGIN
    IF holding_nothing THEN
        chosen := ARRAY(
            SELECT j.id FROM discern.jobs j
            WHERE j.state = 'available' AND j.shared_crashes >= 3
              AND j.backend = ANY(backends) AND j.run_at <= now()
              AND NOT EXISTS (SELECT 1 FROM discern.paused_backends p WHERE p.backend = j.backend)
            ORDER BY j.priority, j.run_at, j.id
            LIMIT 1
            FOR UPDATE SKIP LOCKED);
    END IF;
    IF cardinality(chosen) = 0 THEN
        IF oldest_first > 0 THEN
            chosen := ARRAY(
                SELECT c.id FROM (SELECT DISTINCT u.backend FROM unnest(backends) AS u(backend)
                                  WHERE NOT EXISTS (SELECT 1 FROM discern.paused_backends p WHERE p.backend = u.backend)) AS b
                CROSS JOIN LATERAL (
                    SELECT j.id, j.run_at FROM discern.jobs j
                    WHERE j.state = 'available' AND j.backend = b.backend AND j.run_at <= now()
                      AND j.shared_crashes < 3
                      AND (SELECT o.priority FROM discern.jobs o
                           WHERE o.state = 'available' AND o.backend = b.backend AND o.run_at <= now()
                           ORDER BY o.run_at, o.id LIMIT 1)
                        > (SELECT p.priority FROM discern.jobs p
                           WHERE p.state = 'available' AND p.backend = b.backend AND p.run_at <= now()
                           ORDER BY p.priority, p.run_at, p.id LIMIT 1)
                    ORDER BY j.run_at, j.id
                    LIMIT least(oldest_first, wanted)
                    FOR UPDATE SKIP LOCKED
                ) c
                ORDER BY c.run_at, c.id
                LIMIT least(oldest_first, wanted));
        END IF;
        IF cardinality(chosen) < wanted THEN
            chosen := chosen || ARRAY(
                SELECT c.id FROM (SELECT DISTINCT u.backend FROM unnest(backends) AS u(backend)
                                  WHERE NOT EXISTS (SELECT 1 FROM discern.paused_backends p WHERE p.backend = u.backend)) AS b
                CROSS JOIN LATERAL (
                    SELECT j.id, j.priority, j.run_at FROM discern.jobs j
                    WHERE j.state = 'available' AND j.backend = b.backend AND j.run_at <= now()
                      AND j.shared_crashes < 3 AND j.id <> ALL(chosen)
                    ORDER BY j.priority, j.run_at, j.id
                    LIMIT wanted - cardinality(chosen)
                    FOR UPDATE SKIP LOCKED
                ) c
                ORDER BY c.priority, c.run_at, c.id
                LIMIT wanted - cardinality(chosen));
        END IF;
    END IF;
    RETURN QUERY
    UPDATE discern.jobs AS j
    SET state = 'running', attempts = j.attempts + 1, lease_owner = worker,
        lease_expires_at = now() + make_interval(secs => lease_seconds), updated_at = now()
    WHERE j.id = ANY(chosen)
    RETURNING j.id, j.batch_id, j.backend, j.action, j.image_path, j.params::text,
              j.attempts, j.max_attempts, j.shared_crashes >= 3;
END;
$$;

-- Only workers claim (it runs with the caller's rights, so others could not lease anyway).
