-- discern schema, version 22: claims planned once per session, no roll-up work for a claim, and an
-- audit pick PostgreSQL inlines.
--
-- The claim was one statement of three CTEs (a job that must run alone, the oldest-first share,
-- the rest by priority), and PostgreSQL planned it afresh on every call: custom plans won on
-- cost, because each call's parameters pruned the branches it did not need. Planning took as
-- long as claiming (pg_stat_statements over a 50,000-job drain: 0.33 ms of planning and 0.39 of
-- execution per claim; behind a transaction pooler, where nothing is prepared, every call pays
-- it too). Here each branch is its own statement, run only when it is needed, and planned once
-- per session (PL/pgSQL keeps the plans, `force_generic_plan` keeps them generic). The chosen
-- ids are leased by primary key (`= ANY`), so no plan of the update depends on how many
-- jobs are asked for or on the table's statistics at the time it was made.
--
-- What is claimed is unchanged (QueueSQL.claim in Swift before this version):
--   * a suspect (a job whose workers stopped 3 times while it ran beside others, migration
--     0014) runs alone: only a worker holding nothing asks for one, and when one is waiting it
--     gets that job only; `alone` in the answer tells the worker to claim nothing more;
--   * `oldest_first` of the jobs are the oldest claimable ones whatever their priority (the
--     worker's FairShare, migration 0019's index), only when the oldest waiting job has a worse
--     priority than the best one waiting (two peeks without locks): otherwise the priority
--     order takes it first anyway;
--   * the rest are the best by priority. Each backend is read from its own part of the
--     claimable index (backend first, migration 0012), so other backends' backlogs cost
--     nothing; rows locked and not chosen are free again when the statement ends.
CREATE FUNCTION discern.claim_jobs(worker text, wanted integer, lease_seconds double precision, backends text[],
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
            ORDER BY j.priority, j.run_at, j.id
            LIMIT 1
            FOR UPDATE SKIP LOCKED);
    END IF;
    IF cardinality(chosen) = 0 THEN
        IF oldest_first > 0 THEN
            chosen := ARRAY(
                SELECT c.id FROM (SELECT DISTINCT unnest(backends) AS backend) AS b
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
                SELECT c.id FROM (SELECT DISTINCT unnest(backends) AS backend) AS b
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
REVOKE EXECUTE ON FUNCTION discern.claim_jobs(text, integer, double precision, text[], boolean, integer) FROM PUBLIC;
DO $grants$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_worker') THEN
        GRANT EXECUTE ON FUNCTION discern.claim_jobs(text, integer, double precision, text[], boolean, integer) TO discern_worker;
    END IF;
END;
$grants$;

-- Most updates of jobs move no job into or out of a final state (claims, lease renewals, failed
-- attempts scheduled again), yet the roll-up trigger (migration 0011) joined and grouped both transition tables
-- for each of them: a claim paid 70 µs for an insert of nothing. Two scans without a join now
-- tell it there is nothing to count; what is counted is unchanged.
CREATE OR REPLACE FUNCTION discern.note_jobs_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO discern.pending_job_events (backend, state, delta, finished_minute)
        SELECT backend, state, count(*), date_trunc('minute', coalesce(finished_at, now()))
        FROM added WHERE state IN ('succeeded', 'dead', 'cancelled') GROUP BY 1, 2, 4;
        RETURN NULL;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO discern.pending_job_events (backend, state, delta)
        SELECT backend, state, -count(*) FROM removed WHERE state IN ('succeeded', 'dead', 'cancelled') GROUP BY 1, 2;
        RETURN NULL;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM after_rows WHERE state IN ('succeeded', 'dead', 'cancelled'))
       AND NOT EXISTS (SELECT 1 FROM before_rows WHERE state IN ('succeeded', 'dead', 'cancelled')) THEN
        RETURN NULL;
    END IF;
    INSERT INTO discern.pending_job_events (backend, state, delta, finished_minute)
    SELECT o.backend, o.state, -count(*), NULL::timestamptz
    FROM before_rows o JOIN after_rows n ON n.id = o.id
    WHERE o.state IN ('succeeded', 'dead', 'cancelled') AND (o.state, o.backend) IS DISTINCT FROM (n.state, n.backend)
    GROUP BY 1, 2
    UNION ALL
    SELECT n.backend, n.state, count(*), date_trunc('minute', coalesce(n.finished_at, now()))
    FROM before_rows o JOIN after_rows n ON n.id = o.id
    WHERE n.state IN ('succeeded', 'dead', 'cancelled') AND (o.state, o.backend) IS DISTINCT FROM (n.state, n.backend)
    GROUP BY 1, 2, 4;
    RETURN NULL;
END;
$$;

-- The audit pick (migration 0021) used its rate twice; PostgreSQL does not inline a SQL function
-- whose argument is a subquery used more than once, which is how the completion passes the
-- rate, so every result paid a SQL function call (8 % of a completion's CPU, perf). A hash
-- fraction is never below 0, so `rate > 0 AND` added nothing: the same picks, each argument
-- used once, inlined.
CREATE OR REPLACE FUNCTION discern.audit_pick(key bigint, rate double precision, seed bigint) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ((hashtextextended(key::text, seed) & 9223372036854775807)::float8 / 9223372036854775807.0) < rate;
$$;
