-- The night's plan, per service: the work queued, the pace it will go at and what binds it, when
-- it finishes (a range), and, given the end of a window (`until`), how many jobs will not finish
-- in it. `discern plan`, the console's /plan, the monitor's discern_plan_* series and the view
-- discern.plan (no window) read it.
--
-- The pace is measured where it can be: jobs finished per minute over the last ten complete
-- minutes while workers ran (its quartiles give the range). Without a measure it is the shared
-- rate limit's: the tightest of the service's keys, per job (a key named after the service alone
-- is spent by every call of a job, a `service:action` key once), divided by the attempts a job
-- has taken lately (its last 1,000 finished jobs: retries and 429s spend calls too). The measure is never taken above the
-- limit: a burst cannot last.
--
-- A service found unavailable (its breaker open, discern.service_breakers) moves at none of it
-- until it is back: the forecast starts at its next probe, the soonest it can be, and the latest
-- finish is unknown (NULL); what binds it says since when it is down.
CREATE OR REPLACE FUNCTION discern.plan_until(until timestamptz DEFAULT NULL)
RETURNS TABLE (
    backend text, waiting bigint, running bigint, later bigint, by_priority jsonb,
    calls_per_job double precision, attempts_per_job double precision,
    limit_key text, limit_per_minute double precision,
    measured_per_minute double precision, measured_low double precision, measured_high double precision,
    per_minute double precision, per_minute_low double precision, per_minute_high double precision,
    constraint_text text, finish_early timestamptz, finish_late timestamptz,
    fits bigint, will_not_finish bigint, price_per_call numeric, cost_forecast numeric,
    calls_this_month bigint, spend_this_month numeric, cap_calls numeric, cap_period text, cap_used bigint)
LANGUAGE sql STABLE AS $$
    WITH queued AS (
        -- Each state on its own partial index (the state a constant): an IN over both read the
        -- whole table (270 ms at a million jobs).
        SELECT x.backend, sum(x.waiting)::bigint AS waiting, sum(x.running)::bigint AS running, sum(x.later)::bigint AS later
        FROM (SELECT j.backend, count(*) FILTER (WHERE j.run_at <= coalesce(until, 'infinity')) AS waiting, 0 AS running,
                     count(*) FILTER (WHERE j.run_at > coalesce(until, 'infinity')) AS later
              FROM discern.jobs j WHERE j.state = 'available' GROUP BY 1
              UNION ALL
              SELECT j.backend, 0, count(*), 0 FROM discern.jobs j WHERE j.state = 'running' GROUP BY 1) x
        GROUP BY x.backend
    ), priorities AS (
        SELECT p.backend, jsonb_object_agg(p.priority::text, p.jobs ORDER BY p.priority) AS by_priority
        FROM (SELECT j.backend, j.priority, count(*) AS jobs FROM discern.jobs j
              WHERE j.state = 'available' AND j.run_at <= coalesce(until, 'infinity') GROUP BY 1, 2) p
        GROUP BY p.backend
    ), recent AS (
        -- What a job took lately: calls from the results' roll-up over the service's last 50
        -- batches, attempts (retries included) over its last 1,000 finished jobs (newest first
        -- through jobs_finished). Reading a week of results took 250 ms at a million.
        SELECT q.backend,
               (SELECT sum(x.api_calls)::numeric / nullif(sum(x.results), 0)
                FROM (SELECT rb.api_calls, rb.results FROM discern.result_batches rb
                      WHERE rb.backend = q.backend AND rb.api_calls > 0 ORDER BY rb.last_at DESC LIMIT 50) x) AS calls_per_job,
               (SELECT avg(x.attempts) FROM (SELECT j.attempts FROM discern.jobs j
                                             WHERE j.backend = q.backend AND j.state IN ('succeeded', 'dead') AND j.attempts > 0
                                               AND j.finished_at IS NOT NULL ORDER BY j.finished_at DESC LIMIT 1000) x) AS attempts_per_job
        FROM queued q
    ), limits AS (
        SELECT DISTINCT ON (q.backend) q.backend, l.key AS limit_key,
               l.per_minute / (CASE WHEN l.key = q.backend THEN greatest(coalesce(r.calls_per_job, 1), 1) ELSE 1 END)
                            / greatest(coalesce(r.attempts_per_job, 1), 1) AS limit_per_minute
        FROM queued q JOIN recent r USING (backend)
        JOIN discern.rate_limits l ON l.key = q.backend OR l.key LIKE q.backend || ':%'
        ORDER BY q.backend, 3
    ), minutes AS (
        SELECT t.backend, t.minute, sum(t.jobs) AS jobs
        FROM discern.throughput_per_minute t
        WHERE t.state IN ('succeeded', 'dead') AND t.minute >= date_trunc('minute', now()) - interval '10 minutes'
          AND t.minute < date_trunc('minute', now())
        GROUP BY 1, 2
    ), measured AS (
        -- Three complete minutes at least, or no measure.
        SELECT m.backend,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY m.jobs) AS mid,
               percentile_cont(0.25) WITHIN GROUP (ORDER BY m.jobs) AS low,
               percentile_cont(0.75) WITHIN GROUP (ORDER BY m.jobs) AS high
        FROM minutes m GROUP BY m.backend HAVING count(*) >= 3
    ), served AS (
        SELECT q.backend,
               EXISTS (SELECT 1 FROM discern.live_workers w WHERE q.backend = ANY (w.backends)) AS live,
               EXISTS (SELECT 1 FROM discern.paused_backends p WHERE p.backend = q.backend) AS paused,
               b.opened_at AS down_since, b.probes_failed, b.next_probe_at AS back_at
        FROM queued q LEFT JOIN discern.service_breakers b ON b.backend = q.backend
    ), pace AS (
        SELECT q.backend, q.waiting, q.running, q.later, l.limit_key, l.limit_per_minute, m.mid, m.low, m.high, s.live, s.paused,
               s.down_since, s.probes_failed, greatest(now(), coalesce(s.back_at, now())) AS starts_at,
               CASE WHEN s.paused OR NOT s.live THEN NULL
                    WHEN m.mid IS NOT NULL THEN least(m.mid, coalesce(l.limit_per_minute, 'infinity'))
                    ELSE l.limit_per_minute END AS per_minute,
               CASE WHEN s.paused OR NOT s.live THEN NULL
                    WHEN m.mid IS NOT NULL THEN least(m.low, coalesce(l.limit_per_minute, 'infinity'))
                    -- From the limit alone: a job or two in a hundred retried, a slow start.
                    ELSE l.limit_per_minute * 0.9 END AS per_minute_low,
               CASE WHEN s.paused OR NOT s.live THEN NULL
                    WHEN m.mid IS NOT NULL THEN least(m.high, coalesce(l.limit_per_minute, 'infinity'))
                    ELSE l.limit_per_minute END AS per_minute_high
        FROM queued q JOIN served s USING (backend)
        LEFT JOIN limits l USING (backend) LEFT JOIN measured m USING (backend)
    ), budget AS (
        -- The cap in calls (a money cap divided by the price), and the calls of its period.
        SELECT b.backend, b.price_per_call,
               discern.cap_used(b.backend, 'month', now()) AS calls_this_month,
               discern.cap_calls(b) AS cap_calls,
               CASE WHEN discern.cap_calls(b) IS NOT NULL THEN b.cap_period END AS cap_period,
               CASE WHEN discern.cap_calls(b) IS NOT NULL THEN discern.cap_used(b.backend, b.cap_period, now()) END AS cap_used
        FROM discern.service_budgets b
    )
    SELECT p.backend, p.waiting, p.running, p.later, coalesce(pr.by_priority, '{}'),
           r.calls_per_job, r.attempts_per_job, p.limit_key, p.limit_per_minute, p.mid, p.low, p.high,
           p.per_minute, p.per_minute_low, p.per_minute_high,
           CASE WHEN p.paused AND EXISTS (SELECT 1 FROM discern.paused_backends x WHERE x.backend = p.backend AND x.paused_by = 'spend cap')
                    THEN 'spend cap reached'
                WHEN p.paused THEN 'paused'
                WHEN p.down_since IS NOT NULL
                    THEN format('unavailable since %s (%s probe(s) failed): nothing moves until a probe is answered',
                                to_char(p.down_since, 'YYYY-MM-DD HH24:MI:SS'), p.probes_failed)
                WHEN NOT p.live THEN 'no live worker'
                WHEN p.mid IS NULL AND p.limit_per_minute IS NULL THEN 'not measured yet'
                WHEN p.limit_per_minute IS NOT NULL AND (p.mid IS NULL OR p.mid >= 0.85 * p.limit_per_minute)
                    THEN 'rate limit ' || p.limit_key
                ELSE 'the workers (their number, concurrency and CPU)' END,
           -- Beyond a century (a limit set near zero) is never: an interval that long is out of range.
           CASE WHEN p.per_minute_high > 0 AND (p.waiting + p.running) / p.per_minute_high < 5e7
                THEN p.starts_at + make_interval(secs => 60 * (p.waiting + p.running) / p.per_minute_high) END,
           CASE WHEN p.down_since IS NULL AND p.per_minute_low > 0 AND (p.waiting + p.running) / p.per_minute_low < 5e7
                THEN now() + make_interval(secs => 60 * (p.waiting + p.running) / p.per_minute_low) END,
           CASE WHEN until IS NOT NULL AND p.per_minute IS NOT NULL
                THEN least(p.waiting + p.running, floor(p.per_minute * greatest(0, extract(epoch FROM until - p.starts_at)) / 60))::bigint END,
           CASE WHEN until IS NULL THEN NULL
                WHEN p.per_minute IS NULL THEN p.waiting + p.running
                ELSE greatest(0, p.waiting + p.running - floor(p.per_minute * greatest(0, extract(epoch FROM until - p.starts_at)) / 60))::bigint END,
           bu.price_per_call,
           round(bu.price_per_call * (p.waiting + p.running) * coalesce(r.calls_per_job, 1) * coalesce(r.attempts_per_job, 1), 2),
           coalesce(bu.calls_this_month, 0), round(bu.price_per_call * coalesce(bu.calls_this_month, 0), 2),
           bu.cap_calls, bu.cap_period, bu.cap_used
    FROM pace p JOIN recent r USING (backend)
    LEFT JOIN priorities pr USING (backend) LEFT JOIN budget bu USING (backend)
    ORDER BY p.backend;
$$;
