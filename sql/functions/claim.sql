-- The worker's claim (claim of sql/queries/jobs.sql; discern.claim_jobs is its older form): leases up to `wanted` jobs of its backends, paused ones
-- skipped. A suspect (3 shared crashes) goes only to a worker holding nothing, and alone;
-- `oldest_first` jobs are the oldest waiting whatever their priority (FairShare), taken only when
-- the oldest has a worse priority than the best, and never from the background band (priority
-- 30000 and more: re-analyses, near-duplicates; migration 39), which waits behind every other job; the rest go by priority, each backend read from
-- its own part of the claimable index. Each branch is its own statement, run only when needed and
-- planned once per session: as one statement the claim is planned on every call, which takes as
-- long as claiming (0.33 ms against 0.39, pg_stat_statements). Filtering paused services inside
-- each branch costs nothing measurable (bench/RESULTS.md, Runtime A/B).
-- A service whose breaker is open (discern.service_breakers: found unavailable) is skipped like a
-- paused one, but for its probe: once its next probe is due and no probe is live, one worker's
-- claim takes one of its jobs as the probe (`probe` true) and records it on the breaker, whose
-- row lock (SKIP LOCKED) lets one claim at a time do so across every worker. A probe is a job
-- that has not failed as one, in the claim's order, else the one that failed as one least often:
-- a photo that makes the service fail is not tried again while another can be. Taking a probe
-- moves the next one past its lease, and finding no job for one moves it 5 s on, so no claim
-- runs for a probe that cannot be taken.
-- JIT is off: a generic plan cannot know its LIMIT (`wanted - cardinality(chosen)`), so with
-- millions waiting it guesses a tenth of them and costs the claim past jit_above_cost; compiling
-- then took 12 ms of a 14 ms claim of 10 at 5,000,000 queued (bench/RESULTS.md, Queue).
CREATE OR REPLACE FUNCTION discern.claim(worker text, wanted integer, lease_seconds double precision, backends text[],
                                   holding_nothing boolean, oldest_first integer)
RETURNS TABLE (id bigint, batch_id bigint, backend text, action text, image_path text, params text,
               attempts integer, max_attempts integer, alone boolean, probe boolean)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    chosen bigint[] := '{}';
    probe_id bigint;
    probed text;
BEGIN
    IF holding_nothing THEN
        chosen := ARRAY(
            SELECT j.id FROM discern.jobs j
            WHERE j.state = 'available' AND j.shared_crashes >= 3
              AND j.backend = ANY(backends) AND j.run_at <= now()
              AND NOT EXISTS (SELECT 1 FROM discern.paused_backends p WHERE p.backend = j.backend)
              AND NOT EXISTS (SELECT 1 FROM discern.service_breakers s WHERE s.backend = j.backend)
            ORDER BY j.priority, j.run_at, j.id
            LIMIT 1
            FOR UPDATE SKIP LOCKED);
    END IF;
    IF cardinality(chosen) = 0
       AND EXISTS (SELECT 1 FROM discern.service_breakers s WHERE s.backend = ANY(backends) AND s.next_probe_at <= now()) THEN
        SELECT s.backend INTO probed FROM discern.service_breakers s
        WHERE s.backend = ANY(backends) AND s.next_probe_at <= now()
          AND NOT EXISTS (SELECT 1 FROM discern.paused_backends p WHERE p.backend = s.backend)
          AND NOT EXISTS (SELECT 1 FROM discern.jobs l WHERE l.id = s.probe_job AND l.state = 'running' AND l.lease_owner = s.probe_owner)
        ORDER BY s.next_probe_at
        LIMIT 1
        FOR UPDATE SKIP LOCKED;
        -- Locked now, and read again in a statement of its own: a probe another claim committed
        -- since this one's first look is seen.
        IF probed IS NOT NULL AND EXISTS (
            SELECT 1 FROM discern.service_breakers s JOIN discern.jobs l ON l.id = s.probe_job
            WHERE s.backend = probed AND l.state = 'running' AND l.lease_owner = s.probe_owner) THEN
            probed := NULL;
        END IF;
        IF probed IS NOT NULL THEN
            probe_id := (SELECT j.id FROM discern.jobs j
                         WHERE j.state = 'available' AND j.backend = probed AND j.run_at <= now() AND j.shared_crashes < 3
                           AND NOT j.error_history @> '[{"probe": true}]'
                         ORDER BY j.priority, j.run_at, j.id
                         LIMIT 1
                         FOR UPDATE SKIP LOCKED);
            IF probe_id IS NULL THEN
                probe_id := (SELECT j.id FROM discern.jobs j
                             WHERE j.state = 'available' AND j.backend = probed AND j.run_at <= now() AND j.shared_crashes < 3
                             ORDER BY (SELECT count(*) FROM jsonb_array_elements(j.error_history) e WHERE e->>'probe' = 'true'),
                                      j.priority, j.run_at, j.id
                             LIMIT 1
                             FOR UPDATE SKIP LOCKED);
            END IF;
            IF probe_id IS NOT NULL THEN
                UPDATE discern.service_breakers s
                SET probe_job = probe_id, probe_owner = worker, probe_started_at = now(),
                    next_probe_at = now() + make_interval(secs => lease_seconds)
                WHERE s.backend = probed;
                chosen := ARRAY[probe_id];
            ELSE
                UPDATE discern.service_breakers s SET next_probe_at = now() + interval '5 seconds' WHERE s.backend = probed;
            END IF;
        END IF;
    END IF;
    IF cardinality(chosen) = 0 OR probe_id IS NOT NULL THEN
        IF oldest_first > 0 AND cardinality(chosen) < wanted THEN
            chosen := chosen || ARRAY(
                SELECT c.id FROM (SELECT DISTINCT u.backend FROM unnest(backends) AS u(backend)
                                  WHERE NOT EXISTS (SELECT 1 FROM discern.paused_backends p WHERE p.backend = u.backend)
                                    AND NOT EXISTS (SELECT 1 FROM discern.service_breakers s WHERE s.backend = u.backend)) AS b
                CROSS JOIN LATERAL (
                    SELECT j.id, j.run_at FROM discern.jobs j
                    WHERE j.state = 'available' AND j.priority < 30000 AND j.backend = b.backend AND j.run_at <= now()
                      AND j.shared_crashes < 3
                      AND (SELECT o.priority FROM discern.jobs o
                           WHERE o.state = 'available' AND o.priority < 30000 AND o.backend = b.backend AND o.run_at <= now()
                           ORDER BY o.run_at, o.id LIMIT 1)
                        > (SELECT p.priority FROM discern.jobs p
                           WHERE p.state = 'available' AND p.backend = b.backend AND p.run_at <= now()
                           ORDER BY p.priority, p.run_at, p.id LIMIT 1)
                    ORDER BY j.run_at, j.id
                    LIMIT least(oldest_first, wanted - cardinality(chosen))
                    FOR UPDATE SKIP LOCKED
                ) c
                ORDER BY c.run_at, c.id
                LIMIT least(oldest_first, wanted - cardinality(chosen)));
        END IF;
        IF cardinality(chosen) < wanted THEN
            chosen := chosen || ARRAY(
                SELECT c.id FROM (SELECT DISTINCT u.backend FROM unnest(backends) AS u(backend)
                                  WHERE NOT EXISTS (SELECT 1 FROM discern.paused_backends p WHERE p.backend = u.backend)
                                    AND NOT EXISTS (SELECT 1 FROM discern.service_breakers s WHERE s.backend = u.backend)) AS b
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
    SET state = 'running', attempts = j.attempts + 1, lease_owner = worker, preparing_by = NULL,
        lease_expires_at = now() + make_interval(secs => lease_seconds), updated_at = now()
    WHERE j.id = ANY(chosen)
    RETURNING j.id, j.batch_id, j.backend, j.action, j.image_path, j.params::text,
              j.attempts, j.max_attempts, j.shared_crashes >= 3, j.id IS NOT DISTINCT FROM probe_id;
END;
$$;
