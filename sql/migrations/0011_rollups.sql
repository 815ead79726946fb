-- discern schema, version 11: dashboards, `discern status`, reports and the console read
-- roll-ups, not every job and result ever written.
--
-- At 20 million jobs and results (bench/results) counting finished jobs by state took 2.5 s,
-- a dashboard's six-hour window of results 3-4 s (a result row is about 1 KB, mostly the raw
-- answer), a batch report 2 s. Those figures grow with the tables; a roll-up's grow with time
-- only (a row per minute and backend, per hour and category/operator, per batch).
--
-- How the roll-ups stay exact and cost the hot path almost nothing:
--  * Statement-level triggers append event rows to a small "pending" table in the transaction
--    that makes the change: jobs entering or leaving a final state (succeeded, dead, cancelled;
--    one row per backend and state for the whole statement), finished jobs deleted, results
--    inserted (one row each). Appending contends with nobody: no counter row is updated by
--    every completion.
--  * discern.roll_up() (every worker's maintenance loop, `discern prune`) moves the committed
--    pending rows into the roll-up tables in one transaction: DELETE ... RETURNING feeds the
--    upserts, so each event is counted once, and rows of transactions not yet committed wait
--    for the next run. An advisory lock keeps one roll-up at a time.
--  * The views read roll-up + pending together, in one snapshot: exact whether or not a
--    roll-up ran lately; pending only holds what happened since the last one.
-- Results that `discern prune` deletes stay counted in the roll-ups: dashboards show what was
-- produced (docs/scaling.md). Jobs' counts by state follow deletes.
-- After a TRUNCATE (no trigger sees it) or a change made with triggers off, run
-- SELECT discern.recount_rollups(); it rebuilds everything from the tables.

CREATE TABLE discern.pending_job_events (
    backend          text NOT NULL,
    state            text NOT NULL,
    -- How many jobs entered (positive) or left (negative) the state.
    delta            integer NOT NULL,
    -- Set when they entered a final state: the minute they count in for throughput.
    finished_minute  timestamptz
);

CREATE TABLE discern.pending_result_events (
    created_at      timestamptz NOT NULL,
    batch_id        bigint,
    backend         text NOT NULL,
    action          text NOT NULL,
    outcome         text NOT NULL,
    category        text NOT NULL,
    operator        text NOT NULL,
    confidence      double precision,
    api_calls       integer NOT NULL,
    original_bytes  bigint NOT NULL,
    sent_bytes      bigint NOT NULL,
    passed_through  boolean NOT NULL,
    prepare_ms      double precision NOT NULL,
    analyze_ms      double precision NOT NULL
);

-- Finished jobs by backend and state, as they are now (waiting and running jobs are counted
-- through their partial indexes, which hold only them).
CREATE TABLE discern.job_state_counts (
    backend  text NOT NULL,
    state    text NOT NULL,
    jobs     bigint NOT NULL,
    PRIMARY KEY (backend, state)
);

-- Jobs that entered a final state, per minute: throughput. A job that died, was retried and
-- then succeeded counts once dead and once succeeded, in the minutes it did so.
CREATE TABLE discern.job_minutes (
    minute   timestamptz NOT NULL,
    backend  text NOT NULL,
    state    text NOT NULL,
    jobs     bigint NOT NULL,
    PRIMARY KEY (minute, backend, state)
);

-- Results per minute: bytes saved, analysis time.
CREATE TABLE discern.result_minutes (
    minute          timestamptz NOT NULL,
    backend         text NOT NULL,
    action          text NOT NULL,
    results         bigint NOT NULL,
    original_bytes  bigint NOT NULL,
    sent_bytes      bigint NOT NULL,
    analyze_ms_sum  double precision NOT NULL,
    PRIMARY KEY (minute, backend, action)
);

-- Results per hour by what they found. '' stands for NULL (a key column cannot be NULL); the
-- views give NULL back.
CREATE TABLE discern.result_hours (
    hour              timestamptz NOT NULL,
    backend           text NOT NULL,
    action            text NOT NULL,
    outcome           text NOT NULL,
    category          text NOT NULL,
    operator          text NOT NULL,
    results           bigint NOT NULL,
    confidence_sum    double precision NOT NULL,
    confidence_count  bigint NOT NULL,
    last_result_at    timestamptz NOT NULL,
    PRIMARY KEY (hour, backend, action, outcome, category, operator)
);

-- Results per batch, backend and outcome: `discern report`, batch summaries.
CREATE TABLE discern.result_batches (
    batch_id        bigint NOT NULL,
    backend         text NOT NULL,
    outcome         text NOT NULL,
    results         bigint NOT NULL,
    api_calls       bigint NOT NULL,
    original_bytes  bigint NOT NULL,
    sent_bytes      bigint NOT NULL,
    passed_through  bigint NOT NULL,
    prepare_ms_sum  double precision NOT NULL,
    analyze_ms_sum  double precision NOT NULL,
    first_at        timestamptz NOT NULL,
    last_at         timestamptz NOT NULL,
    PRIMARY KEY (batch_id, backend, outcome)
);

-- The triggers. SECURITY DEFINER: a role that may change jobs (discern_worker, an operator's
-- UPDATE) need not be granted the pending tables.
-- One statement's jobs that entered or left a final state (inserted, updated or deleted), as one
-- event row per backend, state (and minute): a completion of 100 jobs appends one row, not 100.
CREATE FUNCTION discern.note_jobs_changed() RETURNS trigger
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

CREATE FUNCTION discern.note_results_added() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
    INSERT INTO discern.pending_result_events
    SELECT created_at, batch_id, backend, action, coalesce(outcome, 'unknown'), coalesce(category, ''), coalesce(operator, ''),
           confidence, api_calls, original_bytes, sent_bytes, passed_through, prepare_ms, analyze_ms
    FROM added;
    RETURN NULL;
END;
$$;

-- Statement-level, with transition tables: every UPDATE of jobs (claims and heartbeats too)
-- hands its rows over, and one call per statement keeps what entered or left a final state,
-- instead of one call per finished job (bench/queue measured both at the same median, 45 % of
-- raw SKIP LOCKED; this one writes far fewer event rows).
CREATE TRIGGER jobs_count_final_states AFTER UPDATE ON discern.jobs
    REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT
    EXECUTE FUNCTION discern.note_jobs_changed();
CREATE TRIGGER jobs_count_final_inserts AFTER INSERT ON discern.jobs
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION discern.note_jobs_changed();
CREATE TRIGGER jobs_count_deletes AFTER DELETE ON discern.jobs
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION discern.note_jobs_changed();
CREATE TRIGGER results_count_inserts AFTER INSERT ON discern.results
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION discern.note_results_added();

-- Moves committed pending events into the roll-ups. Returns how many it moved; 0 when another
-- roll-up is running (it will move them).
CREATE FUNCTION discern.roll_up() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    jobs_moved bigint;
    results_moved bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('discern.roll_up')) THEN
        RETURN 0;
    END IF;

    -- One statement per pending table: the DELETE's RETURNING feeds every upsert of it.
    WITH moved AS (DELETE FROM discern.pending_job_events RETURNING *),
    counts AS (
        INSERT INTO discern.job_state_counts AS c (backend, state, jobs)
        SELECT backend, state, sum(delta) FROM moved GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (backend, state) DO UPDATE SET jobs = c.jobs + excluded.jobs),
    minutes AS (
        INSERT INTO discern.job_minutes AS m (minute, backend, state, jobs)
        SELECT finished_minute, backend, state, sum(delta) FROM moved WHERE finished_minute IS NOT NULL
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (minute, backend, state) DO UPDATE SET jobs = m.jobs + excluded.jobs)
    SELECT count(*) INTO jobs_moved FROM moved;

    WITH moved AS (DELETE FROM discern.pending_result_events RETURNING *),
    minutes AS (
        INSERT INTO discern.result_minutes AS m (minute, backend, action, results, original_bytes, sent_bytes, analyze_ms_sum)
        SELECT date_trunc('minute', created_at), backend, action, count(*), sum(original_bytes), sum(sent_bytes), sum(analyze_ms)
        FROM moved GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (minute, backend, action) DO UPDATE
        SET results = m.results + excluded.results, original_bytes = m.original_bytes + excluded.original_bytes,
            sent_bytes = m.sent_bytes + excluded.sent_bytes, analyze_ms_sum = m.analyze_ms_sum + excluded.analyze_ms_sum),
    hours AS (
        INSERT INTO discern.result_hours AS h (hour, backend, action, outcome, category, operator, results, confidence_sum,
                                               confidence_count, last_result_at)
        SELECT date_trunc('hour', created_at), backend, action, outcome, category, operator, count(*),
               coalesce(sum(confidence), 0), count(confidence), max(created_at)
        FROM moved GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
        ON CONFLICT (hour, backend, action, outcome, category, operator) DO UPDATE
        SET results = h.results + excluded.results, confidence_sum = h.confidence_sum + excluded.confidence_sum,
            confidence_count = h.confidence_count + excluded.confidence_count,
            last_result_at = greatest(h.last_result_at, excluded.last_result_at)),
    batches AS (
        INSERT INTO discern.result_batches AS b (batch_id, backend, outcome, results, api_calls, original_bytes, sent_bytes,
                                                 passed_through, prepare_ms_sum, analyze_ms_sum, first_at, last_at)
        SELECT batch_id, backend, outcome, count(*), sum(api_calls), sum(original_bytes), sum(sent_bytes),
               count(*) FILTER (WHERE passed_through), sum(prepare_ms), sum(analyze_ms), min(created_at), max(created_at)
        FROM moved WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (batch_id, backend, outcome) DO UPDATE
        SET results = b.results + excluded.results, api_calls = b.api_calls + excluded.api_calls,
            original_bytes = b.original_bytes + excluded.original_bytes, sent_bytes = b.sent_bytes + excluded.sent_bytes,
            passed_through = b.passed_through + excluded.passed_through,
            prepare_ms_sum = b.prepare_ms_sum + excluded.prepare_ms_sum,
            analyze_ms_sum = b.analyze_ms_sum + excluded.analyze_ms_sum, first_at = least(b.first_at, excluded.first_at),
            last_at = greatest(b.last_at, excluded.last_at))
    SELECT count(*) INTO results_moved FROM moved;
    RETURN jobs_moved + results_moved;
END;
$$;

-- Rebuilds every roll-up from the jobs and results as they are now (results pruned earlier are
-- no longer counted). Takes a share lock on both tables: writers wait until it is done.
CREATE FUNCTION discern.recount_rollups() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('discern.roll_up'));
    LOCK TABLE discern.jobs, discern.results IN SHARE MODE;
    TRUNCATE discern.pending_job_events, discern.pending_result_events, discern.job_state_counts, discern.job_minutes,
             discern.result_minutes, discern.result_hours, discern.result_batches;
    -- Straight from the tables (not through the pending tables: a third of the writing at
    -- 20 million rows).
    INSERT INTO discern.job_state_counts (backend, state, jobs)
    SELECT backend, state, count(*) FROM discern.jobs WHERE state IN ('succeeded', 'dead', 'cancelled') GROUP BY 1, 2;
    INSERT INTO discern.job_minutes (minute, backend, state, jobs)
    SELECT date_trunc('minute', coalesce(finished_at, created_at)), backend, state, count(*)
    FROM discern.jobs WHERE state IN ('succeeded', 'dead', 'cancelled') GROUP BY 1, 2, 3;
    DROP TABLE IF EXISTS pg_temp.recounted;
    CREATE TEMPORARY TABLE recounted ON COMMIT DROP AS
    SELECT date_trunc('minute', created_at) AS minute, batch_id, backend, action, coalesce(outcome, 'unknown') AS outcome,
           coalesce(category, '') AS category, coalesce(operator, '') AS operator, count(*) AS results,
           coalesce(sum(confidence), 0) AS confidence_sum, count(confidence) AS confidence_count, sum(api_calls) AS api_calls,
           sum(original_bytes) AS original_bytes, sum(sent_bytes) AS sent_bytes, count(*) FILTER (WHERE passed_through) AS passed_through,
           sum(prepare_ms) AS prepare_ms_sum, sum(analyze_ms) AS analyze_ms_sum, min(created_at) AS first_at, max(created_at) AS last_at
    FROM discern.results GROUP BY 1, 2, 3, 4, 5, 6, 7;
    INSERT INTO discern.result_minutes (minute, backend, action, results, original_bytes, sent_bytes, analyze_ms_sum)
    SELECT minute, backend, action, sum(results), sum(original_bytes), sum(sent_bytes), sum(analyze_ms_sum) FROM recounted GROUP BY 1, 2, 3;
    INSERT INTO discern.result_hours (hour, backend, action, outcome, category, operator, results, confidence_sum, confidence_count, last_result_at)
    SELECT date_trunc('hour', minute), backend, action, outcome, category, operator, sum(results), sum(confidence_sum),
           sum(confidence_count), max(last_at)
    FROM recounted GROUP BY 1, 2, 3, 4, 5, 6;
    INSERT INTO discern.result_batches (batch_id, backend, outcome, results, api_calls, original_bytes, sent_bytes, passed_through,
                                        prepare_ms_sum, analyze_ms_sum, first_at, last_at)
    SELECT batch_id, backend, outcome, sum(results), sum(api_calls), sum(original_bytes), sum(sent_bytes), sum(passed_through),
           sum(prepare_ms_sum), sum(analyze_ms_sum), min(first_at), max(last_at)
    FROM recounted WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3;
END;
$$;

REVOKE EXECUTE ON FUNCTION discern.roll_up(), discern.recount_rollups() FROM PUBLIC;
DO $grants$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_worker') THEN
        GRANT EXECUTE ON FUNCTION discern.roll_up() TO discern_worker;
    END IF;
END;
$grants$;

-- Jobs by state and backend: waiting and running through their partial indexes, finished
-- from the roll-up. Same columns and figures as before, without reading finished jobs.
CREATE OR REPLACE VIEW discern.queue_depth AS
SELECT backend, state, sum(jobs)::bigint AS jobs, min(oldest_run_at) AS oldest_run_at
FROM (-- The state as a constant, not the column: the claimable index (backend, ..., run_at)
      -- then answers from its entries alone.
      SELECT backend, 'available'::text AS state, count(*) AS jobs, min(run_at) AS oldest_run_at
      FROM discern.jobs WHERE state = 'available' GROUP BY 1
      UNION ALL SELECT backend, 'running'::text, count(*), NULL FROM discern.jobs WHERE state = 'running' GROUP BY 1
      UNION ALL SELECT backend, state, jobs, NULL FROM discern.job_state_counts
      UNION ALL SELECT backend, state, sum(delta), NULL FROM discern.pending_job_events GROUP BY 1, 2) x
GROUP BY backend, state
HAVING sum(jobs) <> 0;

CREATE OR REPLACE VIEW discern.throughput_per_minute AS
SELECT minute, backend, state, sum(jobs)::bigint AS jobs
FROM (SELECT minute, backend, state, jobs FROM discern.job_minutes WHERE minute > now() - interval '24 hours'
      UNION ALL
      SELECT finished_minute, backend, state, sum(delta) FROM discern.pending_job_events
      WHERE delta > 0 AND finished_minute > now() - interval '24 hours' GROUP BY 1, 2, 3) x
GROUP BY 1, 2, 3;

CREATE OR REPLACE VIEW discern.throughput_per_hour AS
SELECT date_trunc('hour', minute) AS hour, backend, state, sum(jobs)::bigint AS jobs
FROM (SELECT minute, backend, state, jobs FROM discern.job_minutes WHERE minute > now() - interval '30 days'
      UNION ALL
      SELECT finished_minute, backend, state, sum(delta) FROM discern.pending_job_events
      WHERE delta > 0 AND finished_minute > now() - interval '30 days' GROUP BY 1, 2, 3) x
GROUP BY 1, 2, 3;

-- Dead jobs by kind: counted from the dead jobs' own index; the example is the newest message
-- of each kind, found by the same index instead of sorting every dead job.
DROP INDEX discern.jobs_dead;
CREATE INDEX jobs_dead ON discern.jobs (backend, error_kind, finished_at) WHERE state = 'dead';
CREATE OR REPLACE VIEW discern.errors_by_kind AS
SELECT k.backend, k.error_kind, k.jobs, k.last_seen, e.last_error AS example
FROM (SELECT backend, error_kind, count(*) AS jobs, max(finished_at) AS last_seen
      FROM discern.jobs WHERE state = 'dead' GROUP BY 1, 2) k
LEFT JOIN LATERAL (
    (SELECT j.last_error FROM discern.jobs j
     WHERE j.state = 'dead' AND j.backend = k.backend AND j.error_kind = k.error_kind
     ORDER BY j.finished_at DESC LIMIT 1)
    UNION ALL
    (SELECT j.last_error FROM discern.jobs j
     WHERE j.state = 'dead' AND j.backend = k.backend AND j.error_kind IS NULL AND k.error_kind IS NULL
     ORDER BY j.finished_at DESC LIMIT 1)
    LIMIT 1) e ON true;

CREATE OR REPLACE VIEW discern.outcomes_by_backend AS
SELECT backend, action, outcome, sum(results)::bigint AS results,
       sum(confidence_sum) / nullif(sum(confidence_count), 0) AS avg_confidence, max(last_result_at) AS last_result_at
FROM (SELECT backend, action, outcome, results, confidence_sum, confidence_count, last_result_at FROM discern.result_hours
      UNION ALL
      SELECT backend, action, outcome, 1, coalesce(confidence, 0), (confidence IS NOT NULL)::int, created_at
      FROM discern.pending_result_events) x
GROUP BY backend, action, outcome;

-- What dashboards read for a time window: Grafana's $__timeFilter(minute) / (hour).
CREATE VIEW discern.results_per_minute AS
SELECT minute, backend, action, sum(results)::bigint AS results, sum(original_bytes)::bigint AS original_bytes,
       sum(sent_bytes)::bigint AS sent_bytes, sum(analyze_ms_sum) AS analyze_ms_sum
FROM (SELECT minute, backend, action, results, original_bytes, sent_bytes, analyze_ms_sum FROM discern.result_minutes
      UNION ALL
      SELECT date_trunc('minute', created_at), backend, action, 1, original_bytes, sent_bytes, analyze_ms
      FROM discern.pending_result_events) x
GROUP BY 1, 2, 3;

CREATE VIEW discern.results_per_hour AS
SELECT hour, backend, action, outcome, nullif(category, '') AS category, nullif(operator, '') AS operator,
       sum(results)::bigint AS results, sum(confidence_sum) / nullif(sum(confidence_count), 0) AS avg_confidence
FROM (SELECT hour, backend, action, outcome, category, operator, results, confidence_sum, confidence_count FROM discern.result_hours
      UNION ALL
      SELECT date_trunc('hour', created_at), backend, action, outcome, category, operator, 1, coalesce(confidence, 0),
             (confidence IS NOT NULL)::int
      FROM discern.pending_result_events) x
GROUP BY 1, 2, 3, 4, 5, 6;

CREATE VIEW discern.results_per_batch AS
SELECT batch_id, backend, outcome, sum(results)::bigint AS results, sum(api_calls)::bigint AS api_calls,
       sum(original_bytes)::bigint AS original_bytes, sum(sent_bytes)::bigint AS sent_bytes,
       sum(passed_through)::bigint AS passed_through, sum(prepare_ms_sum) AS prepare_ms_sum,
       sum(analyze_ms_sum) AS analyze_ms_sum, min(first_at) AS first_at, max(last_at) AS last_at
FROM (SELECT batch_id, backend, outcome, results, api_calls, original_bytes, sent_bytes, passed_through, prepare_ms_sum,
             analyze_ms_sum, first_at, last_at FROM discern.result_batches
      UNION ALL
      SELECT batch_id, backend, outcome, 1, api_calls, original_bytes, sent_bytes, passed_through::int, prepare_ms, analyze_ms,
             created_at, created_at
      FROM discern.pending_result_events WHERE batch_id IS NOT NULL) x
GROUP BY 1, 2, 3;

-- A batch's jobs by backend and state without reading them (a btree instead of the BRIN
-- range index: a 500,000-job batch counted from the index alone), the few that failed along
-- the way, and the results whose job was pruned (a report's timing).
DROP INDEX discern.jobs_batch;
CREATE INDEX jobs_batch ON discern.jobs (batch_id, backend, state) INCLUDE (finished_at);
CREATE INDEX jobs_batch_failed_attempts ON discern.jobs (batch_id) WHERE error_history <> '[]'::jsonb;
CREATE INDEX results_batch_pruned_jobs ON discern.results (batch_id, created_at) WHERE job_id IS NULL;

-- Batch summaries read the results' roll-up.
CREATE OR REPLACE FUNCTION discern.batch_summary(batch bigint) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    seen_generation bigint;
    doc jsonb;
BEGIN
    SELECT b.generation INTO seen_generation FROM discern.batches b WHERE b.id = batch;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT s.summary INTO doc FROM discern.batch_summaries s
    WHERE s.batch_id = batch AND s.generation = seen_generation
      AND ((s.summary ->> 'available')::bigint + (s.summary ->> 'running')::bigint = 0
           OR s.computed_at > clock_timestamp() - interval '10 seconds');
    IF FOUND THEN
        RETURN doc;
    END IF;

    SELECT jsonb_build_object(
               'jobs', count(*),
               'available', count(*) FILTER (WHERE j.state = 'available'),
               'running', count(*) FILTER (WHERE j.state = 'running'),
               'succeeded', count(*) FILTER (WHERE j.state = 'succeeded'),
               'dead', count(*) FILTER (WHERE j.state = 'dead'),
               'cancelled', count(*) FILTER (WHERE j.state = 'cancelled'),
               'per_minute', count(*) FILTER (WHERE j.finished_at > now() - interval '10 minutes') / 10.0,
               'first_finished_at', min(j.finished_at),
               'last_finished_at', max(j.finished_at))
    INTO doc FROM discern.jobs j WHERE j.batch_id = batch;

    doc := doc || (
        SELECT jsonb_build_object(
                   'original_bytes', coalesce(sum(o.original_bytes), 0),
                   'sent_bytes', coalesce(sum(o.sent_bytes), 0),
                   'outcomes', coalesce(jsonb_agg(jsonb_build_object('outcome', o.outcome, 'results', o.results) ORDER BY o.results DESC), '[]'))
        FROM (SELECT r.outcome, sum(r.results) AS results, sum(r.original_bytes) AS original_bytes, sum(r.sent_bytes) AS sent_bytes
              FROM discern.results_per_batch r WHERE r.batch_id = batch GROUP BY 1) o);

    doc := doc || jsonb_build_object('errors', (
        SELECT coalesce(jsonb_agg(jsonb_build_object('error_kind', e.error_kind, 'jobs', e.jobs, 'example', e.example) ORDER BY e.jobs DESC), '[]')
        FROM (SELECT j.error_kind, count(*) AS jobs, left(max(j.last_error), 300) AS example FROM discern.jobs j
              WHERE j.batch_id = batch AND j.state = 'dead' GROUP BY j.error_kind ORDER BY count(*) DESC LIMIT 5) e));

    BEGIN
        INSERT INTO discern.batch_summaries (batch_id, generation, summary, computed_at)
        VALUES (batch, seen_generation, doc, clock_timestamp())
        ON CONFLICT (batch_id) DO UPDATE
        SET generation = excluded.generation, summary = excluded.summary, computed_at = excluded.computed_at;
    EXCEPTION WHEN read_only_sql_transaction THEN
        NULL;
    END;
    RETURN doc;
END;
$$;

-- Retention never makes a worker wait, nor waits long itself: both prunes take only rows no
-- worker touches (finished long ago) and skip any row locked; lock_timeout bounds a wait on
-- anything else (an operator's long transaction, a migration) to 2 s, after which the call
-- fails with SQLSTATE 55P03 and `discern prune` tries again.
-- Both are planned with each call's values (EXECUTE): a SQL function's plan does not know the
-- cut-off, and at 20 million rows it chose to read whole indexes for every chunk (12 s per
-- 1,000 jobs instead of 17 ms).
CREATE OR REPLACE FUNCTION discern.prune(older_than interval, batch_size integer DEFAULT 10000) RETURNS integer
LANGUAGE plpgsql SET lock_timeout = '2s' AS $$
DECLARE
    deleted integer;
BEGIN
    EXECUTE 'WITH doomed AS (
                 SELECT id FROM discern.jobs
                 WHERE finished_at < $1 AND state IN (''succeeded'', ''dead'', ''cancelled'')
                 ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED
             ), deleted AS (
                 DELETE FROM discern.jobs j USING doomed WHERE j.id = doomed.id RETURNING j.id
             ), detached AS (
                 UPDATE discern.results r SET job_id = NULL FROM deleted WHERE r.job_id = deleted.id
             )
             SELECT count(*)::integer FROM deleted'
    INTO deleted USING now() - older_than, batch_size;
    RETURN deleted;
END;
$$;

-- Results (with their entities and corrections) created before now() - older_than, oldest
-- first, up to batch_size per call: for installations that keep results for a limited time
-- (`discern prune --results-days N`). The roll-ups keep counting them. A pruned result no
-- longer marks its content as analysed: the file is enqueued again if it is still there.
CREATE FUNCTION discern.prune_results(older_than interval, batch_size integer DEFAULT 10000) RETURNS integer
LANGUAGE plpgsql SET lock_timeout = '2s' AS $$
DECLARE
    deleted integer;
BEGIN
    -- (A generic plan sorted every old result for each chunk: 7.5 s per 1,000 instead of 15 ms.)
    EXECUTE 'WITH doomed AS (
                 SELECT id FROM discern.results WHERE created_at < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED
             ), deleted AS (
                 DELETE FROM discern.results r USING doomed WHERE r.id = doomed.id RETURNING 1
             )
             SELECT count(*)::integer FROM deleted'
    INTO deleted USING now() - older_than, batch_size;
    RETURN deleted;
END;
$$;

-- The roll-ups of what is already there.
SELECT discern.recount_rollups();
DO $grants$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'discern_reader') THEN
        GRANT SELECT ON discern.queue_depth, discern.throughput_per_minute, discern.throughput_per_hour,
                        discern.errors_by_kind, discern.outcomes_by_backend, discern.results_per_minute,
                        discern.results_per_hour, discern.results_per_batch TO discern_reader;
    END IF;
END;
$grants$;
